export {
  type FakeHandler,
  type FakeOpenAiServer,
  type FakeReply,
  type FakeRequest,
  startFakeOpenAiServer,
} from "./openai-server.js";
