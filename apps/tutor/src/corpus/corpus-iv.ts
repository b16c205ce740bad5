import type { CoursePassage } from "./course-corpus.js";

const T1 = "Tema 1. Introducción a la infraestructura virtual";
const T2 = "Tema 2. Contenedores";
const T3 = "Tema 3. Integración y despliegue continuos";
const T4 = "Tema 4. Infraestructura como código";
const T5 = "Tema 5. Microservicios y orquestación";

/**
 * Sample passages of "Infraestructura Virtual" (`iv`). SAMPLE CONTENT written for this app.
 *
 * @example
 * IV_PASSAGES[0]?.concepto; // "infraestructura virtual"
 */
export const IV_PASSAGES: readonly CoursePassage[] = [
  {
    id: "iv-01",
    asignatura: "iv",
    tema: T1,
    concepto: "infraestructura virtual",
    definicion:
      "Conjunto de recursos de cómputo, red y almacenamiento definidos por software sobre hardware compartido.",
    texto:
      "La infraestructura virtual es el conjunto de recursos de cómputo, red y almacenamiento que se definen por software sobre hardware compartido. Permite crear, modificar y destruir entornos completos en minutos, y describirlos en ficheros que se versionan junto al código de la aplicación.",
  },
  {
    id: "iv-02",
    asignatura: "iv",
    tema: T1,
    concepto: "hipervisor",
    definicion: "Capa de software que reparte el hardware físico entre varias máquinas virtuales aisladas.",
    texto:
      "Un hipervisor es la capa de software que reparte el hardware físico entre varias máquinas virtuales aisladas. Los de tipo 1 (KVM, Xen) se ejecutan directamente sobre el hardware; los de tipo 2 (VirtualBox) se ejecutan como una aplicación sobre un sistema operativo anfitrión. Cada máquina virtual lleva su propio núcleo del sistema operativo.",
  },
  {
    id: "iv-03",
    asignatura: "iv",
    tema: T1,
    concepto: "modelos de servicio en la nube",
    definicion: "Clasificación IaaS, PaaS y SaaS según cuánta parte de la pila gestiona el proveedor.",
    texto:
      "Los modelos de servicio en la nube son IaaS, PaaS y SaaS. En IaaS el proveedor ofrece máquinas virtuales, redes y discos y el cliente gestiona el sistema operativo; en PaaS el cliente solo despliega su aplicación sobre una plataforma gestionada; en SaaS el cliente usa directamente una aplicación terminada.",
  },
  {
    id: "iv-04",
    asignatura: "iv",
    tema: T2,
    concepto: "contenedor",
    definicion: "Proceso aislado con namespaces y cgroups que comparte el núcleo del sistema anfitrión.",
    texto:
      "Un contenedor es un proceso aislado del resto del sistema mediante namespaces y limitado en recursos mediante cgroups. A diferencia de una máquina virtual, comparte el núcleo del sistema operativo anfitrión, por lo que arranca en milisegundos y ocupa mucho menos espacio.",
  },
  {
    id: "iv-05",
    asignatura: "iv",
    tema: T2,
    concepto: "imagen de contenedor",
    definicion: "Plantilla inmutable formada por capas de sistema de ficheros a partir de la cual se crean instancias.",
    texto:
      "Una imagen de contenedor es una plantilla inmutable formada por capas de sistema de ficheros. Cada instrucción de un Dockerfile añade una capa; las capas se comparten entre imágenes y se guardan en caché, de modo que reconstruir una imagen solo repite los pasos que cambiaron. Las imágenes se publican en registros como Docker Hub o GitHub Container Registry.",
  },
  {
    id: "iv-06",
    asignatura: "iv",
    tema: T2,
    concepto: "Dockerfile",
    definicion: "Fichero de texto con las instrucciones FROM, RUN, COPY y CMD que describen cómo construir una imagen.",
    texto:
      "Un Dockerfile es un fichero de texto con las instrucciones que describen cómo construir una imagen: FROM elige la imagen base, RUN ejecuta órdenes durante la construcción, COPY añade ficheros y CMD indica la orden por defecto. Conviene usar imágenes base pequeñas, ordenar las instrucciones de menos a más cambiantes y usar construcciones multietapa para no incluir herramientas de compilación en la imagen final.",
  },
  {
    id: "iv-07",
    asignatura: "iv",
    tema: T2,
    concepto: "volumen",
    definicion: "Almacenamiento que sobrevive al ciclo de vida de un contenedor y puede compartirse entre varios.",
    texto:
      "Un volumen es un almacenamiento persistente que sobrevive al ciclo de vida de un contenedor. El sistema de ficheros de un contenedor es efímero: al borrarlo se pierden sus cambios. Los datos de una base de datos, por ejemplo, deben guardarse en un volumen o en un directorio montado del anfitrión.",
  },
  {
    id: "iv-08",
    asignatura: "iv",
    tema: T3,
    concepto: "integración continua",
    definicion:
      "Práctica de fusionar cambios con frecuencia y verificar cada uno con una construcción y tests automáticos.",
    texto:
      "La integración continua es la práctica de fusionar los cambios en la rama principal con frecuencia y verificar cada uno con una construcción y una batería de tests automáticos. Servicios como GitHub Actions ejecutan esa verificación en cada push o pull request, de modo que los errores se detectan cuando el cambio aún es pequeño.",
  },
  {
    id: "iv-09",
    asignatura: "iv",
    tema: T3,
    concepto: "despliegue continuo",
    definicion: "Publicación automática en producción de todo cambio que supera la canalización de verificación.",
    texto:
      "El despliegue continuo lleva un paso más allá la integración continua: todo cambio que supera la canalización de verificación se publica automáticamente en producción. La entrega continua, en cambio, deja el cambio listo para desplegar pero requiere una aprobación manual. Ambas exigen tests fiables y la posibilidad de volver atrás rápidamente.",
  },
  {
    id: "iv-10",
    asignatura: "iv",
    tema: T3,
    concepto: "gestor de tareas",
    definicion: "Herramienta que centraliza órdenes como instalar, testear o construir bajo nombres comunes.",
    texto:
      "Un gestor de tareas (make, npm scripts, invoke, just) centraliza las órdenes habituales de un proyecto, como instalar dependencias, ejecutar los tests o construir la imagen, bajo nombres comunes. Así la canalización de integración continua y los desarrolladores ejecutan exactamente lo mismo.",
  },
  {
    id: "iv-11",
    asignatura: "iv",
    tema: T4,
    concepto: "infraestructura como código",
    definicion:
      "Descripción declarativa y versionada de servidores, redes y permisos que una herramienta aplica de forma reproducible.",
    texto:
      "La infraestructura como código describe servidores, redes y permisos en ficheros declarativos y versionados que una herramienta aplica de forma reproducible. Terraform compara el estado deseado con el real y calcula un plan de cambios; Ansible aplica configuraciones a máquinas existentes a través de SSH.",
  },
  {
    id: "iv-12",
    asignatura: "iv",
    tema: T4,
    concepto: "idempotencia",
    definicion:
      "Propiedad de una operación que, aplicada varias veces, deja el sistema igual que aplicada una sola vez.",
    texto:
      "La idempotencia es la propiedad de una operación que, aplicada varias veces, deja el sistema en el mismo estado que aplicada una sola vez. Las herramientas de infraestructura como código la buscan: ejecutar de nuevo un playbook de Ansible sobre una máquina ya configurada no debe cambiar nada.",
  },
  {
    id: "iv-13",
    asignatura: "iv",
    tema: T5,
    concepto: "microservicio",
    definicion: "Servicio pequeño y desplegable por separado que gestiona sus propios datos y se comunica por la red.",
    texto:
      "Un microservicio es un servicio pequeño, desplegable por separado, que se ocupa de una sola capacidad del negocio, gestiona sus propios datos y se comunica con los demás a través de la red, normalmente con HTTP o mensajería. Facilita escalar y desplegar cada parte de forma independiente a cambio de más complejidad operativa.",
  },
  {
    id: "iv-14",
    asignatura: "iv",
    tema: T5,
    concepto: "Kubernetes",
    definicion:
      "Orquestador que mantiene en un clúster el número deseado de réplicas de cada servicio y las reinicia si fallan.",
    texto:
      "Kubernetes es un orquestador de contenedores: mantiene en un clúster el estado deseado que se le declara, por ejemplo tres réplicas de un servicio, y reinicia o reubica los pods que fallan. Los Deployments gestionan réplicas y actualizaciones graduales; los Services dan una dirección estable a un conjunto de pods.",
  },
  {
    id: "iv-15",
    asignatura: "iv",
    tema: T5,
    concepto: "Docker Compose",
    definicion:
      "Herramienta que declara en un fichero YAML varios contenedores, sus redes y volúmenes, y los levanta juntos.",
    texto:
      "Docker Compose declara en un fichero YAML varios contenedores, sus redes y sus volúmenes, y los levanta juntos con una sola orden. Es útil para el desarrollo y los tests de integración de una aplicación con varios servicios, por ejemplo una API y su base de datos.",
  },
  {
    id: "iv-16",
    asignatura: "iv",
    tema: T5,
    concepto: "configuración distribuida",
    definicion:
      "Práctica de leer la configuración de variables de entorno o de un almacén clave-valor, no de ficheros incluidos en la imagen.",
    texto:
      "En la configuración distribuida la aplicación lee su configuración de variables de entorno o de un almacén clave-valor como etcd, y no de ficheros incluidos en la imagen. Así la misma imagen sirve para desarrollo, pruebas y producción, siguiendo la metodología de las doce factores.",
  },
  {
    id: "iv-17",
    asignatura: "iv",
    tema: T2,
    concepto: "contenedores frente a máquinas virtuales",
    definicion:
      "Comparación entre aislar procesos sobre un núcleo compartido y emular equipos completos con su propio sistema operativo.",
    texto:
      "Las máquinas virtuales ofrecen un aislamiento más fuerte, porque cada una ejecuta su propio núcleo, y permiten mezclar sistemas operativos distintos; a cambio, tardan más en arrancar y consumen más memoria. Los contenedores comparten el núcleo del anfitrión, arrancan en milisegundos y empaquetan cada servicio con sus dependencias. Conviene usar máquinas virtuales cuando se necesita aislamiento fuerte o un sistema operativo distinto, y contenedores para desplegar muchos servicios ligeros y reproducibles; a menudo se combinan, ejecutando contenedores dentro de máquinas virtuales.",
  },
];
