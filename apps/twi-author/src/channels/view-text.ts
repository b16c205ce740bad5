/**
 * The bot's words (Hungarian, as the users are) for each point of a conversation, shared by the
 * Teams and Telegram channels and the CLI.
 */
import { DecisionError } from "../decisions.js";
import { NOT_PUBLISHABLE_TEXT } from "../nodes.js";
import type { ConversationView } from "../twi-assistant.js";

/**
 * Texts the channels show.
 *
 * @example
 * TEXT.rejected; // "A vázlatot elutasította. A beszélgetés lezárult."
 */
export const TEXT = {
  reviewTitle: (revision: number) =>
    revision === 0
      ? "Munkautasítás-vázlat — felülvizsgálat"
      : `Javított vázlat (${revision}. revízió) — felülvizsgálat`,
  reviewHint: (left: number) =>
    left > 0
      ? `Jóváhagyhatja, javítást kérhet (még ${left} alkalommal), vagy elutasíthatja.`
      : "Jóváhagyhatja vagy elutasíthatja. A revíziós keret elfogyott: egy újabb javítási kérés a végső jóváhagyásra kerül.",
  notInstruction:
    "Ez nem kész munkautasítás: az asszisztens kérdez vagy válaszol, ezért nem hagyható jóvá. Válaszát a „Javítás kérése” mezőben adja meg, vagy utasítsa el.",
  finalTitle: "Végső jóváhagyás",
  finalHint: "A jóváhagyás után elkészül a PDF, és a beszélgetés bekerül az auditnaplóba.",
  forced: (feedback: string | null) =>
    `Elérte a legfeljebb 3 revíziót, ezért a vázlat a végső jóváhagyásra került.${feedback ? ` Be nem épített kérés: „${feedback}”` : ""}`,
  completed: (url: string) => `✅ A munkautasítás jóváhagyva. PDF (24 óráig érvényes link): ${url}`,
  rejected: "A vázlatot elutasította. A beszélgetés lezárult.",
  unknownState: "A beszélgetés állapota nem ismert.",
  approve: "Jóváhagyás",
  requestRevision: "Javítás kérése",
  reject: "Elutasítás",
  finalApprove: "Végső jóváhagyás",
  feedbackPlaceholder: "Mit javítsak? Pl. „Biztonság: védőszemüveg kötelező” vagy „Új lépés: …”",
  feedbackPrompt: "✏️ Írja meg erre az üzenetre válaszolva, mit javítsak.",
  working: "⏳ Dolgozom a vázlaton…",
  failed: "⚠ Hiba történt a feldolgozás közben. Kérem, próbálja újra később.",
  help: "Írja le, melyik munkafolyamatról kér TWI munkautasítást (és ha tudja, a lépéseit), például: „Írj TWI munkautasítást a raklap fóliázásáról.”",
} as const;

/**
 * The sentence for a refused decision.
 *
 * @example
 * decisionErrorText(new DecisionError("…", "NOT_PAUSED")); // "Ez a beszélgetés már nem vár döntésre."
 */
export function decisionErrorText(error: unknown): string {
  if (!(error instanceof DecisionError)) return TEXT.failed;
  switch (error.code) {
    case "FEEDBACK_REQUIRED":
      return "A javítás kéréséhez írja le, mit kell megváltoztatni.";
    case "NOT_PAUSED":
      return "Ez a beszélgetés már nem vár döntésre.";
    case "WRONG_PAUSE":
      return "Erről a lépésről már döntöttek; a beszélgetés a következő lépésnél tart.";
    case "STALE":
      return "Ez a kártya egy korábbi lépéshez tartozik, arról már döntöttek; a beszélgetés a legutóbbi kártyánál tart.";
    case "BUSY":
      return "Egy döntés feldolgozása már folyamatban van ennél a beszélgetésnél; várja meg az eredményét.";
    case "UNKNOWN_CONVERSATION":
      return "Ezt a beszélgetést nem találom.";
    case "NOT_PUBLISHABLE":
      // the reason names what is wrong (not an instruction, an empty section, gaps left)
      return error.message.replace(/^Conversation "[^"]*": /, "") || NOT_PUBLISHABLE_TEXT;
  }
}

/**
 * A view as plain text (Telegram, the CLI); the draft follows the heading.
 *
 * @example
 * viewText(view); // "Munkautasítás-vázlat — felülvizsgálat\n\n⚠️ AI által …"
 */
export function viewText(view: ConversationView): string {
  switch (view.kind) {
    case "review":
      return [
        TEXT.reviewTitle(view.revision),
        "",
        view.draft,
        "",
        view.isInstruction ? TEXT.reviewHint(view.revisionsLeft) : TEXT.notInstruction,
      ].join("\n");
    case "final_approval":
      return [
        TEXT.finalTitle,
        ...(view.forced ? [TEXT.forced(view.pendingFeedback)] : []),
        "",
        view.draft,
        "",
        TEXT.finalHint,
      ].join("\n");
    case "completed":
      return TEXT.completed(view.pdfUrl);
    case "rejected":
      return TEXT.rejected;
    case "clarify":
      return view.text;
    case "error":
      return TEXT.failed;
    case "unknown":
      return TEXT.unknownState;
  }
}
