/**
 * The retrieval question set of issue 36: questions as students write them (accents or none, plurals,
 * verbs instead of nouns, the course's abbreviations and English terms), each with the passage that
 * answers it. Written for this app; `recall.test.ts` reports recall@3 over it.
 */
export interface RetrievalQuestion {
  query: string;
  asignatura: "iv" | "DS";
  /** The id of the passage that answers the question. */
  expected: string;
}

export const RETRIEVAL_QUESTIONS: readonly RetrievalQuestion[] = [
  // Infraestructura Virtual
  { query: "¿para qué sirve un volumen en docker?", asignatura: "iv", expected: "iv-07" },
  { query: "como guardo los datos de mi base de datos si borro el contenedor", asignatura: "iv", expected: "iv-07" },
  { query: "¿los datos persisten cuando se elimina un contenedor?", asignatura: "iv", expected: "iv-07" },
  { query: "que diferencia hay entre una maquina virtual y un contenedor", asignatura: "iv", expected: "iv-17" },
  { query: "¿cuándo conviene usar VMs en vez de contenedores?", asignatura: "iv", expected: "iv-17" },
  { query: "¿Qué aíslan los namespaces y los cgroups?", asignatura: "iv", expected: "iv-04" },
  { query: "explícame qué es un hipervisor de tipo 1", asignatura: "iv", expected: "iv-02" },
  { query: "diferencias entre KVM y VirtualBox", asignatura: "iv", expected: "iv-02" },
  { query: "iaas paas saas en que se diferencian", asignatura: "iv", expected: "iv-03" },
  { query: "¿qué gestiona el cliente en IaaS?", asignatura: "iv", expected: "iv-03" },
  { query: "¿por qué las capas de una imagen se cachean?", asignatura: "iv", expected: "iv-05" },
  { query: "dónde se publican las imágenes de docker", asignatura: "iv", expected: "iv-05" },
  { query: "como se escribe un dockerfile", asignatura: "iv", expected: "iv-06" },
  { query: "¿para qué sirve la instrucción FROM?", asignatura: "iv", expected: "iv-06" },
  { query: "qué son las construcciones multietapa", asignatura: "iv", expected: "iv-06" },
  { query: "¿qué es la CI?", asignatura: "iv", expected: "iv-08" },
  { query: "para que se usa github actions", asignatura: "iv", expected: "iv-08" },
  { query: "diferencia entre entrega continua y despliegue continuo", asignatura: "iv", expected: "iv-09" },
  { query: "¿qué es el CD?", asignatura: "iv", expected: "iv-09" },
  { query: "¿para qué sirve make o npm scripts?", asignatura: "iv", expected: "iv-10" },
  { query: "que es un task runner", asignatura: "iv", expected: "iv-10" },
  { query: "¿qué es IaC?", asignatura: "iv", expected: "iv-11" },
  { query: "¿cómo calcula terraform el plan?", asignatura: "iv", expected: "iv-11" },
  { query: "¿qué significa que una operación sea idempotente?", asignatura: "iv", expected: "iv-12" },
  { query: "por que ejecutar dos veces un playbook no cambia nada", asignatura: "iv", expected: "iv-12" },
  { query: "ventajas e inconvenientes de los microservicios", asignatura: "iv", expected: "iv-13" },
  { query: "¿qué hace k8s cuando falla un pod?", asignatura: "iv", expected: "iv-14" },
  { query: "para que sirven los deployments y los services", asignatura: "iv", expected: "iv-14" },
  { query: "¿cómo levanto varios contenedores a la vez con un yaml?", asignatura: "iv", expected: "iv-15" },
  { query: "¿qué es docker-compose?", asignatura: "iv", expected: "iv-15" },
  { query: "¿dónde debe leer la aplicación su configuración?", asignatura: "iv", expected: "iv-16" },
  { query: "variables de entorno y etcd", asignatura: "iv", expected: "iv-16" },
  { query: "los doce factores", asignatura: "iv", expected: "iv-16" },
  { query: "qué es la virtualización de infraestructura", asignatura: "iv", expected: "iv-01" },
  // Desarrollo de Software
  { query: "¿qué es Scrum?", asignatura: "DS", expected: "DS-01" },
  { query: "qué hace el scrum master", asignatura: "DS", expected: "DS-01" },
  { query: "¿cuánto dura un sprint?", asignatura: "DS", expected: "DS-01" },
  { query: "¿cómo se redacta una historia de usuario?", asignatura: "DS", expected: "DS-02" },
  { query: "criterios de aceptacion y puntos de historia", asignatura: "DS", expected: "DS-02" },
  { query: "¿qué problemas tiene el desarrollo en cascada?", asignatura: "DS", expected: "DS-03" },
  { query: "¿qué dice la S de SOLID?", asignatura: "DS", expected: "DS-04" },
  { query: "una clase con un solo motivo para cambiar", asignatura: "DS", expected: "DS-04" },
  { query: "abierto a extension cerrado a modificacion", asignatura: "DS", expected: "DS-05" },
  { query: "¿por qué un cuadrado no debería heredar de rectángulo?", asignatura: "DS", expected: "DS-06" },
  { query: "¿qué es la inyección de dependencias?", asignatura: "DS", expected: "DS-07" },
  { query: "¿qué es la D de SOLID?", asignatura: "DS", expected: "DS-07" },
  { query: "bajo acoplamiento y alta cohesion", asignatura: "DS", expected: "DS-08" },
  { query: "¿cómo notifica un sujeto a sus suscriptores?", asignatura: "DS", expected: "DS-09" },
  { query: "patron observer", asignatura: "DS", expected: "DS-09" },
  { query: "¿qué patrón uso para cambiar de algoritmo en tiempo de ejecución?", asignatura: "DS", expected: "DS-10" },
  { query: "strategy pattern", asignatura: "DS", expected: "DS-10" },
  { query: "¿qué es un patrón creacional?", asignatura: "DS", expected: "DS-11" },
  { query: "¿para qué sirve una factory?", asignatura: "DS", expected: "DS-11" },
  { query: "envolver un objeto para añadirle responsabilidades", asignatura: "DS", expected: "DS-12" },
  { query: "¿cómo debe ser un test unitario?", asignatura: "DS", expected: "DS-13" },
  { query: "¿qué es TDD?", asignatura: "DS", expected: "DS-14" },
  { query: "rojo verde refactorizar", asignatura: "DS", expected: "DS-14" },
  { query: "diferencia entre un mock y un stub", asignatura: "DS", expected: "DS-15" },
  { query: "¿una cobertura del 100% garantiza que el código está bien probado?", asignatura: "DS", expected: "DS-16" },
  { query: "que porcentaje de ramas ejecutan los tests", asignatura: "DS", expected: "DS-16" },
];
