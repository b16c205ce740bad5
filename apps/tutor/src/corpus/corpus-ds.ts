import type { CoursePassage } from "./course-corpus.js";

const T1 = "Tema 1. Procesos de desarrollo";
const T2 = "Tema 2. Principios de diseño";
const T3 = "Tema 3. Patrones de diseño";
const T4 = "Tema 4. Pruebas del software";

/**
 * Sample passages of "Desarrollo de Software" (`DS`). SAMPLE CONTENT written for this app.
 *
 * @example
 * DS_PASSAGES.map((p) => p.concepto).includes("patrón Observador"); // true
 */
export const DS_PASSAGES: readonly CoursePassage[] = [
  {
    id: "DS-01",
    asignatura: "DS",
    tema: T1,
    concepto: "Scrum",
    definicion:
      "Marco ágil que organiza el trabajo en sprints de duración fija con un product owner y un equipo autoorganizado.",
    texto:
      "Scrum es un marco de trabajo ágil que organiza el desarrollo en sprints de duración fija, normalmente de dos a cuatro semanas. El product owner prioriza la pila del producto, el equipo se autoorganiza para cumplir el objetivo del sprint y el scrum master elimina impedimentos. Cada sprint termina con una revisión y una retrospectiva.",
  },
  {
    id: "DS-02",
    asignatura: "DS",
    tema: T1,
    concepto: "historia de usuario",
    definicion:
      "Descripción breve de una necesidad con el formato «como rol quiero objetivo para beneficio» y criterios de aceptación.",
    texto:
      "Una historia de usuario describe una necesidad desde el punto de vista de quien la tiene, con el formato «como <rol> quiero <objetivo> para <beneficio>». Se acompaña de criterios de aceptación que permiten comprobar cuándo está terminada y se estima en puntos de historia.",
  },
  {
    id: "DS-03",
    asignatura: "DS",
    tema: T1,
    concepto: "modelo en cascada",
    definicion:
      "Proceso secuencial en el que requisitos, diseño, implementación, pruebas y mantenimiento se suceden sin solaparse.",
    texto:
      "El modelo en cascada es un proceso secuencial: requisitos, diseño, implementación, pruebas y mantenimiento se suceden sin solaparse, y cada fase parte de los documentos de la anterior. Funciona cuando los requisitos son estables, pero los errores de requisitos se descubren tarde y corregirlos es caro.",
  },
  {
    id: "DS-04",
    asignatura: "DS",
    tema: T2,
    concepto: "principio de responsabilidad única",
    definicion: "Principio según el cual una clase debe tener un solo motivo para cambiar.",
    texto:
      "El principio de responsabilidad única (la S de SOLID) dice que una clase debe tener un solo motivo para cambiar. Una clase que calcula nóminas y además las imprime mezcla dos responsabilidades: un cambio en el formato de impresión obligaría a tocar el cálculo.",
  },
  {
    id: "DS-05",
    asignatura: "DS",
    tema: T2,
    concepto: "principio abierto-cerrado",
    definicion:
      "Principio según el cual los módulos deben poder extenderse con comportamiento nuevo sin modificar su código.",
    texto:
      "El principio abierto-cerrado (la O de SOLID) pide que los módulos estén abiertos a la extensión y cerrados a la modificación: se añade comportamiento nuevo escribiendo código nuevo, por ejemplo una nueva implementación de una interfaz, sin modificar el que ya funciona.",
  },
  {
    id: "DS-06",
    asignatura: "DS",
    tema: T2,
    concepto: "principio de sustitución de Liskov",
    definicion:
      "Principio según el cual un subtipo debe poder usarse donde se espera su tipo base sin alterar la corrección del programa.",
    texto:
      "El principio de sustitución de Liskov (la L de SOLID) exige que un subtipo pueda usarse allí donde se espera su tipo base sin que el programa deje de ser correcto. El ejemplo clásico es el cuadrado que hereda de rectángulo: fijar el ancho de un cuadrado cambia también su alto y rompe lo que esperaba el código cliente.",
  },
  {
    id: "DS-07",
    asignatura: "DS",
    tema: T2,
    concepto: "inversión de dependencias",
    definicion:
      "Principio según el cual los módulos de alto nivel dependen de abstracciones y no de implementaciones concretas.",
    texto:
      "El principio de inversión de dependencias (la D de SOLID) establece que los módulos de alto nivel no deben depender de los de bajo nivel, sino ambos de abstracciones. En la práctica se inyectan interfaces, por ejemplo un repositorio, en lugar de crear dentro de la clase la implementación concreta, lo que además facilita las pruebas.",
  },
  {
    id: "DS-08",
    asignatura: "DS",
    tema: T2,
    concepto: "acoplamiento y cohesión",
    definicion:
      "Medidas de cuánto depende un módulo de otros y de cuán relacionadas están las tareas dentro de un mismo módulo.",
    texto:
      "El acoplamiento mide cuánto depende un módulo de otros; la cohesión, cuán relacionadas están las responsabilidades dentro de un mismo módulo. Un buen diseño busca bajo acoplamiento y alta cohesión: los cambios quedan localizados y los módulos se entienden por separado.",
  },
  {
    id: "DS-09",
    asignatura: "DS",
    tema: T3,
    concepto: "patrón Observador",
    definicion:
      "Patrón de comportamiento en el que un sujeto notifica sus cambios a los objetos suscritos sin conocer sus clases concretas.",
    texto:
      "El patrón Observador es un patrón de comportamiento: un sujeto mantiene una lista de observadores suscritos y les notifica cada cambio de estado sin conocer sus clases concretas. Se usa en interfaces gráficas y en sistemas de eventos; su riesgo es que las notificaciones en cadena sean difíciles de seguir.",
  },
  {
    id: "DS-10",
    asignatura: "DS",
    tema: T3,
    concepto: "patrón Estrategia",
    definicion:
      "Patrón que encapsula una familia de algoritmos intercambiables detrás de una interfaz común elegida en tiempo de ejecución.",
    texto:
      "El patrón Estrategia encapsula una familia de algoritmos intercambiables detrás de una interfaz común, de modo que el cliente elige cuál usar en tiempo de ejecución. Por ejemplo, distintas políticas de descuento de una tienda. Sustituye a los condicionales largos y cumple el principio abierto-cerrado.",
  },
  {
    id: "DS-11",
    asignatura: "DS",
    tema: T3,
    concepto: "patrón Factoría",
    definicion: "Patrón creacional que delega en un método o clase la decisión de qué clase concreta instanciar.",
    texto:
      "El patrón Factoría (método factoría o factoría abstracta) es un patrón creacional que delega en un método o en una clase la decisión de qué clase concreta instanciar. El código cliente trabaja con la interfaz del producto y no depende de las clases concretas.",
  },
  {
    id: "DS-12",
    asignatura: "DS",
    tema: T3,
    concepto: "patrón Decorador",
    definicion:
      "Patrón estructural que añade responsabilidades a un objeto envolviéndolo en otro con la misma interfaz.",
    texto:
      "El patrón Decorador es un patrón estructural que añade responsabilidades a un objeto envolviéndolo en otro que implementa la misma interfaz y delega en él. Los decoradores se pueden apilar, lo que evita una explosión de subclases, como en los flujos de entrada y salida de Java.",
  },
  {
    id: "DS-13",
    asignatura: "DS",
    tema: T4,
    concepto: "prueba unitaria",
    definicion: "Prueba automática que verifica una unidad pequeña de código aislada de sus dependencias.",
    texto:
      "Una prueba unitaria verifica automáticamente una unidad pequeña de código, como una función o una clase, aislada de sus dependencias mediante dobles de prueba. Debe ser rápida, determinista e independiente del orden; suele seguir la estructura preparar, actuar y comprobar.",
  },
  {
    id: "DS-14",
    asignatura: "DS",
    tema: T4,
    concepto: "desarrollo guiado por pruebas",
    definicion:
      "Ciclo de escribir primero una prueba que falla, después el código mínimo que la supera y por último refactorizar.",
    texto:
      "El desarrollo guiado por pruebas (TDD) sigue el ciclo rojo, verde, refactorizar: se escribe primero una prueba que falla, después el código mínimo que la hace pasar y por último se mejora el diseño sin cambiar el comportamiento. Produce un conjunto de pruebas que documenta el comportamiento esperado.",
  },
  {
    id: "DS-15",
    asignatura: "DS",
    tema: T4,
    concepto: "doble de prueba",
    definicion: "Objeto que sustituye a una dependencia real durante una prueba, como un stub, un mock o un fake.",
    texto:
      "Un doble de prueba sustituye a una dependencia real durante una prueba. Un stub devuelve respuestas fijas; un mock además comprueba qué llamadas recibe; un fake es una implementación simplificada que funciona, como una base de datos en memoria.",
  },
  {
    id: "DS-16",
    asignatura: "DS",
    tema: T4,
    concepto: "cobertura de código",
    definicion: "Porcentaje de sentencias o ramas del programa que ejecuta una batería de pruebas.",
    texto:
      "La cobertura de código es el porcentaje de sentencias o de ramas que ejecuta una batería de pruebas. Una cobertura baja señala código sin probar, pero una cobertura alta no garantiza que las pruebas comprueben lo importante: también hay que revisar sus aserciones.",
  },
];
