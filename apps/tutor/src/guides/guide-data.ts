/**
 * One section of a teaching guide ("guía docente").
 *
 * @example
 * const s: GuideSection = { seccion: "evaluacion", titulo: "Evaluación", contenido: "…" };
 */
export interface GuideSection {
  /** Key of the section: descripcion, profesorado, temario, evaluacion, bibliografia, tutorias. */
  seccion: string;
  titulo: string;
  contenido: string;
}

/**
 * A teaching guide. SAMPLE CONTENT written for this app, not any university's official guide.
 *
 * @example
 * const g: TeachingGuide = { asignatura: "iv", nombre: "Infraestructura Virtual", curso: "4º", creditos: 6, secciones: [] };
 */
export interface TeachingGuide {
  asignatura: string;
  nombre: string;
  curso: string;
  creditos: number;
  secciones: GuideSection[];
}

/**
 * The section keys every shipped guide has, in order.
 *
 * @example
 * GUIDE_SECTIONS.includes("evaluacion"); // true
 */
export const GUIDE_SECTIONS = [
  "descripcion",
  "profesorado",
  "temario",
  "evaluacion",
  "bibliografia",
  "tutorias",
] as const;

/**
 * The teaching guides loaded into the app's database on first start (sample content).
 *
 * @example
 * SAMPLE_GUIDES.map((g) => g.asignatura); // ["iv", "DS"]
 */
export const SAMPLE_GUIDES: readonly TeachingGuide[] = [
  {
    asignatura: "iv",
    nombre: "Infraestructura Virtual",
    curso: "4º curso, primer semestre",
    creditos: 6,
    secciones: [
      {
        seccion: "descripcion",
        titulo: "Descripción de la asignatura",
        contenido:
          "Asignatura optativa de 6 créditos ECTS sobre virtualización, contenedores, integración continua, infraestructura como código y despliegue de microservicios en la nube. Se trabaja sobre un proyecto propio que evoluciona durante todo el semestre.",
      },
      {
        seccion: "profesorado",
        titulo: "Profesorado",
        contenido:
          "Teoría: Dra. Elena Martín Ruiz (coordinadora). Prácticas: D. Javier Ortega Gil. Contacto a través de la plataforma docente de la asignatura.",
      },
      {
        seccion: "temario",
        titulo: "Temario",
        contenido:
          "Tema 1. Introducción a la infraestructura virtual. Tema 2. Contenedores. Tema 3. Integración y despliegue continuos. Tema 4. Infraestructura como código. Tema 5. Microservicios y orquestación.",
      },
      {
        seccion: "evaluacion",
        titulo: "Evaluación",
        contenido:
          "Evaluación continua: proyecto práctico por hitos (70 %) y dos cuestionarios de teoría (30 %). Es necesario obtener al menos un 4 sobre 10 en cada parte. Evaluación única final: examen teórico (30 %) y defensa de un proyecto completo (70 %), solicitada en las dos primeras semanas del curso.",
      },
      {
        seccion: "bibliografia",
        titulo: "Bibliografía",
        contenido:
          "Kief Morris, «Infrastructure as Code» (O'Reilly). Nigel Poulton, «Docker Deep Dive». Documentación oficial de Docker, Kubernetes y GitHub Actions.",
      },
      {
        seccion: "tutorias",
        titulo: "Horario de tutorías",
        contenido:
          "Martes de 10:00 a 13:00 y jueves de 16:00 a 19:00, en el despacho 2.14 o por videoconferencia con cita previa.",
      },
    ],
  },
  {
    asignatura: "DS",
    nombre: "Desarrollo de Software",
    curso: "3º curso, segundo semestre",
    creditos: 6,
    secciones: [
      {
        seccion: "descripcion",
        titulo: "Descripción de la asignatura",
        contenido:
          "Asignatura obligatoria de 6 créditos ECTS sobre procesos de desarrollo, principios de diseño orientado a objetos, patrones de diseño y pruebas del software.",
      },
      {
        seccion: "profesorado",
        titulo: "Profesorado",
        contenido: "Teoría: Dr. Luis Navarro Prieto (coordinador). Prácticas: Dra. Ana Belén Castro y D. Marcos Vidal.",
      },
      {
        seccion: "temario",
        titulo: "Temario",
        contenido:
          "Tema 1. Procesos de desarrollo. Tema 2. Principios de diseño (SOLID, acoplamiento y cohesión). Tema 3. Patrones de diseño. Tema 4. Pruebas del software.",
      },
      {
        seccion: "evaluacion",
        titulo: "Evaluación",
        contenido:
          "Examen final escrito (50 %), prácticas en grupo con entregas quincenales (40 %) y participación en clase (10 %). Para aprobar hay que obtener al menos un 5 en el examen y en las prácticas.",
      },
      {
        seccion: "bibliografia",
        titulo: "Bibliografía",
        contenido:
          "E. Gamma et al., «Design Patterns». R. C. Martin, «Clean Architecture». K. Beck, «Test-Driven Development: By Example».",
      },
      {
        seccion: "tutorias",
        titulo: "Horario de tutorías",
        contenido: "Lunes y miércoles de 11:00 a 14:00 en el despacho 3.07.",
      },
    ],
  },
];
