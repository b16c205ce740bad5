import { foldAccents } from "../retrieval/spanish-text.js";

/**
 * What a student asked for when they asked for a quiz: how many questions, on what, or over the whole
 * course.
 *
 * @example
 * const request: QuizRequest = { numQuestions: 3, topic: "patrones de diseño", wholeCourse: false };
 */
export interface QuizRequest {
  /** The number asked for, or undefined when none was said. */
  numQuestions: number | undefined;
  /** The topic in the student's words, or undefined when none was said or the whole course was asked. */
  topic: string | undefined;
  /** The student asked for the whole subject ("de toda la asignatura", "todo el temario", "general"). */
  wholeCourse: boolean;
}

/**
 * The topic the test-session subgraph reads as the whole course.
 *
 * @example
 * isGeneralTopic(WHOLE_COURSE_TOPIC); // true
 */
export const WHOLE_COURSE_TOPIC = "toda la asignatura";

const NOUN =
  "(?:test|tests|quiz|quizz|quizzes|examen|examenes|cuestionario|cuestionarios|simulacro|autoevaluacion|preguntas|prueba)";
/** Verbs (and verb phrases) that ask for something, before the quiz noun. */
const ASK =
  "(?:hazme|haz|hagamos|hacer|hacerme|haces|hace|ponme|pon|poner|pones|ponerme|preparame|prepara|preparar|prepararme|" +
  "genera|generame|generar|crea|creame|crear|dame|da|quiero|quisiera|querria|me gustaria|necesito|podemos|empieza|empezar|" +
  "empecemos|empezamos|comienza|comenzar|vamos con|mandame|manda|propon|proponme|plantea|plantéame|planteame|lanza|lanzame)";
/** Words that may sit between the verb and the noun ("hazme un test breve", "quiero hacer un pequeño examen"). */
const FILLER =
  "(?:\\s+(?:un|una|unas|unos|el|la|los|las|otro|otra|otros|otras|mini|pequeno|pequena|breve|rapido|rapida|corto|corta|nuevo|nueva|algun|alguna|algunas|algunos|par de|serie de|bateria de|me|hacer|realizar|practicar|repasar|estudiar|con|tipo|\\d+|uno|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|de))*";
const REQUEST = new RegExp(`\\b${ASK}${FILLER}\\s+${NOUN}\\b`);
/** Imperatives that ask for a quiz on their own. */
const IMPERATIVE =
  /\b(examiname|examinarme|evaluame|evaluarme|preguntame|ponme a prueba|pon a prueba|ponerme a prueba|testeame|comprueba (lo que se|mis conocimientos|si me lo se))\b/;
/** A request that starts with the noun: "test de 3 preguntas sobre…", "un quiz de docker", "5 preguntas sobre…". */
const NOUN_FIRST = new RegExp(
  `^(?:y\\s+)?(?:(?:un par de|un|una|otro|otra|unas)\\s+)?(?:(?:\\d+|uno|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez)\\s+)?${NOUN}\\b(?!\\s+(?:unitari|de integraci|automatic|final|parcial))`,
);
/** Questions about the exam itself, which the course guide answers. */
const ABOUT_THE_EXAM =
  /\b(examen|examenes) (final|parcial|extraordinari|ordinari)|\b(cuando|como) (es|son|sera|seran) (el|los) examen/;

const NUMBERS: Record<string, number> = {
  un: 1,
  una: 1,
  uno: 1,
  dos: 2,
  tres: 3,
  cuatro: 4,
  cinco: 5,
  seis: 6,
  siete: 7,
  ocho: 8,
  nueve: 9,
  diez: 10,
  once: 11,
  doce: 12,
  quince: 15,
  veinte: 20,
};
const NUMBER =
  "(\\d+|un par de|un par|una|uno|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|once|doce|quince|veinte)";
const COUNT = new RegExp(
  `\\b${NUMBER}\\s+(?:preguntas|pregunta|cuestiones|items)\\b|\\b(?:test|quiz|examen|cuestionario)\\s+de\\s+${NUMBER}\\b(?!\\s+(?:de|del)\\b)`,
);
const WHOLE =
  /\b(tod[oa]s?\s+(?:el|la|los|las)?\s*(?:asignatura|temario|curso|materia|temas|apuntes|contenidos?)|(?:asignatura|temario|curso|materia)\s+(?:entera|entero|completa|completo)|de todo(?!\s+\w)|en general|general)\b/;
const TRAILING =
  /(?:[\s,]+(?:por favor|porfa|porfi|gracias|para (?:practicar|repasar|estudiar|prepararme)(?:\s.*)?|si puedes|vale|ya))+[\s?.!¡¿]*$|[\s?.!¡¿]+$/;

/**
 * Reads a quiz request in the ways students phrase one — "hazme un test de 5 preguntas sobre
 * volúmenes", "examíname de Scrum", "¿me puedes hacer un quiz de patrones?", "test sobre todo el
 * temario", "quiero un test de 10 preguntas de toda la asignatura" — or undefined when the text is not
 * one (a question about tests, or about the exam, is not).
 *
 * @example
 * readQuizRequest("test de 3 preguntas sobre patrones de diseño"); // { numQuestions: 3, topic: "patrones de diseño", wholeCourse: false }
 * readQuizRequest("¿qué es un test unitario?"); // undefined
 */
export function readQuizRequest(text: string): QuizRequest | undefined {
  const spaced = text.normalize("NFC").replace(/[¿¡]/g, " ").replace(/\s+/g, " ").trim();
  const folded = foldAccents(spaced);
  if (ABOUT_THE_EXAM.test(folded)) return undefined;
  const asked = REQUEST.exec(folded) ?? IMPERATIVE.exec(folded) ?? NOUN_FIRST.exec(folded);
  if (!asked) return undefined;
  const numQuestions = countOf(folded);
  const wholeCourse = WHOLE.test(folded.slice(asked.index));
  // The topic: what follows the quiz words, in the student's own spelling, without the count.
  const rest = spaced.slice(asked.index + asked[0].length);
  const topic = wholeCourse ? undefined : topicOf(rest);
  return { numQuestions, topic, wholeCourse };
}

function countOf(folded: string): number | undefined {
  const m = COUNT.exec(folded);
  const word = m?.[1] ?? m?.[2];
  if (!word) return undefined;
  if (word.startsWith("un par")) return 2;
  const n = /^\d+$/.test(word) ? Number(word) : NUMBERS[word];
  return n !== undefined && n > 0 ? n : undefined;
}

/** What may lead the topic after the quiz words: the count, the kind of quiz, adjectives. */
const LEADING =
  /^(?:(?:de|con)\s+)?(?:\d+|un par de|un par|una|uno|un|unas|unos|el|la|los|las|mis|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|once|doce|quince|veinte|preguntas?|cuestiones|examen|test|quiz|tipo test|de opcion multiple|opcion multiple|de repaso|rapid[oa]|brev[e]|cort[oa]|pequen[oa]|facil|dificil|ahora|ya|por favor|a prueba)\b[\s,]*/;
/** A count after the topic: ", 3 preguntas", "con 4 preguntas", "(5 preguntas)". */
const COUNT_AFTER = new RegExp(`[\\s,(]+(?:con\\s+|de\\s+|en\\s+)?${NUMBER}\\s+(?:preguntas?|cuestiones)\\b.*$`, "i");
/** The word that introduces the topic. */
const MARKER = /^(?:sobre|acerca del?|relacionad[oa]s? con|del?|en|para)\s+/;

function topicOf(rest: string): string | undefined {
  let s = rest.trim();
  // An explicit "sobre X" / "acerca de X" anywhere after the quiz words names the topic.
  const about = /\b(?:sobre|acerca del?|relacionad[oa]s? con)\s+/.exec(foldAccents(s));
  if (about) s = s.slice(about.index);
  for (let folded = foldAccents(s), m = LEADING.exec(folded); m && m[0].length > 0; m = LEADING.exec(folded)) {
    s = s.slice(m[0].length);
    folded = foldAccents(s);
  }
  const marker = MARKER.exec(foldAccents(s));
  if (marker) s = s.slice(marker[0].length);
  // A count said after the topic ("SOLID, 3 preguntas", "pruebas con 4 preguntas") is not part of it.
  const topic = s.replace(TRAILING, "").replace(COUNT_AFTER, "").replace(TRAILING, "").trim();
  return topic !== "" && !/^(mi|me|lo|eso|esto|ello|algo)$/i.test(topic) ? topic : undefined;
}
