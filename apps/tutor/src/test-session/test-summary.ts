import type { TestSessionState } from "../state.js";

/**
 * The closing message of a test: the last feedback, the score, one line per question and advice.
 *
 * @example
 * testSummary(state); // "✅ ¡Correcto! …\n\n📊 Resultado del test sobre «contenedores»: 4/5 correctas (80 %).\n1. ✅ …"
 */
export function testSummary(s: TestSessionState): string {
  const topic = s.topic ?? "la asignatura";
  if (s.questions.length === 0) {
    if (s.coverage_note) return s.coverage_note;
    return `No he podido generar preguntas sobre «${topic}» con los documentos disponibles. Prueba con otro tema.`;
  }
  const correct = s.scores.filter(Boolean).length;
  const total = s.questions.length;
  const percent = Math.round((correct / total) * 100);
  const lines = s.questions.map((q, i) => {
    const answered = s.user_answers[i];
    const ok = s.scores[i] === true;
    const mark = answered === undefined ? "⏭️" : ok ? "✅" : "❌";
    const detail = ok ? `tu respuesta: ${answered}` : `tu respuesta: ${answered ?? "-"}, correcta: ${q.correct_answer}`;
    return `${i + 1}. ${mark} ${q.question} (${detail})`;
  });
  const advice =
    percent >= 80
      ? "¡Muy bien! Dominas este tema."
      : percent >= 50
        ? "Vas bien, pero repasa las preguntas que has fallado."
        : `Te recomiendo repasar «${topic}» en los apuntes antes de seguir.`;
  return [
    s.pending_feedback,
    `📊 Resultado del test sobre «${topic}»: ${correct}/${total} correctas (${percent} %).`,
    lines.join("\n"),
    advice,
  ]
    .filter((part): part is string => !!part)
    .join("\n\n");
}
