/**
 * `@trellis/protocol`: what every Trellis door shares and a browser can import (no runtime
 * dependencies, no Node APIs). The pause vocabulary — how an interrupt asks and how each kind is
 * answered — is read by the CLI, the studio and AG-UI from here.
 */

export {
  formAnswer,
  joinAnswers,
  type Pause,
  parseFreeAnswer,
  parseTypedAnswer,
  pauseHint,
  type QuestionsPause,
  type ReviewAction,
  type ReviewDecision,
  type ReviewDecisionType,
  type ReviewPause,
  readPause,
  reviewAnswer,
} from "./pause-reading.js";
export {
  type ApprovePause,
  askApproval,
  askChoice,
  askForm,
  askText,
  type ChoosePause,
  type FormPause,
  type PauseFieldSchema,
  type PauseFormSchema,
  type PauseKind,
  type PauseOption,
  type PauseRequest,
  type TextPause,
} from "./pause-request.js";
export type {
  ApiAssistant,
  ApiAssistantVersion,
  ApiCheckpoint,
  ApiCheckpointMetadata,
  ApiGraphJson,
  ApiInterrupt,
  ApiMultitaskStrategy,
  ApiRun,
  ApiRunError,
  ApiRunStatus,
  ApiRunTimeline,
  ApiServerInfo,
  ApiThread,
  ApiThreadState,
  ApiThreadStatus,
  ApiTimelineCall,
  ApiTimelineModelCall,
  ApiTimelineTask,
  ApiTimelineToolCall,
} from "./wire.js";
