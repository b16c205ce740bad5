/**
 * The inspection reporter's phrasing table (issue 36): what Dutch inspectors type — report requests
 * that carry the facts in their own words, answers to the clarification in one sentence or several,
 * replies that are no answer, and questions for the other agents — each with what the last reply must
 * (and must not) say. Written for this app; `phrasing.test.ts` runs it over the AG-UI WebSocket and
 * reports the share right.
 */
export interface InspectionPhrasing {
  /** Messages of one conversation, in order; the last reply is checked. */
  turns: readonly string[];
  contains: readonly string[];
  not?: readonly string[];
}

const Q_ALL_BUT_NAME =
  "1. Wat is het adres van de inspectielocatie?\n2. Was de hygiëne in orde?\n3. Zijn er overtredingen geconstateerd?";

export const INSPECTION_PHRASINGS: readonly InspectionPhrasing[] = [
  // report requests with the facts said in passing
  {
    turns: [
      "Ik wil een rapport maken van het bezoek aan Visrestaurant De Kade op de Haven 4 in Harlingen, KvK 3456 7812. Alles was schoon, hygiëne prima, geen overtredingen.",
    ],
    contains: [
      "# Inspectierapport Visrestaurant De Kade",
      "- Adres: Haven 4, Harlingen",
      "- KVK-nummer: 34567812",
      "oordeel: Voldoet)",
    ],
  },
  {
    turns: [
      "Rapport graag voor Pizzeria Napoli, Grote Markt 21, 9711 LV Groningen (kvk 44556677): hygiëne onvoldoende en er is een overtreding: het vlees lag onafgedekt in de koeling.",
    ],
    contains: [
      "- Adres: Grote Markt 21, 9711 LV Groningen",
      "- Hygiëne in orde: nee",
      "- Toelichting overtredingen: het vlees lag onafgedekt in de koeling",
      "Voldoet niet",
    ],
  },
  {
    turns: [
      "Kun je een inspectierapport opstellen voor Slagerij Van den Berg aan de Dorpsstraat 9 te Ede? KVK-nummer is 11223344. De hygiëne was goed, maar er was één overtreding: de vitrine stond op 11 graden.",
    ],
    contains: [
      "# Inspectierapport Slagerij Van den Berg",
      "- Adres: Dorpsstraat 9, Ede",
      "- Toelichting overtredingen: de vitrine stond op 11 graden",
    ],
  },
  {
    turns: [
      "Maak een rapport voor Snackbar De Hoek, Kerkplein 2 in Assen, KVK 99887766. Hygiëne in orde. De frituur was 190 graden en het olieschema ontbrak, dat is een overtreding.",
    ],
    contains: [
      "- Toelichting overtredingen: De frituur was 190 graden en het olieschema ontbrak",
      "- Overtredingen geconstateerd: ja",
    ],
  },
  {
    turns: ["Inspectierapport voor Bakkerij Het Zoete Brood (KVK 1234 5678) op de Hoofdweg 101 in Emmen graag"],
    contains: ["1. Was de hygiëne in orde?\n2. Zijn er overtredingen geconstateerd?"],
    not: ["mijn inspectie", "graag"],
  },
  {
    turns: ["Schrijf het rapport van mijn inspectie bij IJssalon Venezia aan de Boulevard 7 in Zandvoort"],
    contains: ["Ik maak een conceptrapport aan voor IJssalon Venezia."],
    not: ["mijn inspectie bij"],
  },
  {
    turns: ["Vandaag Lunchroom Lekker Lunchen (KVK 55667788) bezocht, maak er een rapport van"],
    contains: ["Ik maak een conceptrapport aan voor Lunchroom Lekker Lunchen."],
  },
  {
    turns: ["rapport voor cafetaria de smulhoek, dorpsweg 3 te hoorn"],
    contains: ["Ik maak een conceptrapport aan voor cafetaria de smulhoek"],
  },
  {
    turns: [
      "Maak een inspectierapport voor Hotel Zeezicht, Strandweg 1 in Vlissingen, KVK 22334455, hygiëne netjes en geen enkele overtreding gezien",
    ],
    contains: ["- Overtredingen geconstateerd: nee", "oordeel: Voldoet)"],
  },
  {
    turns: [
      "Maak een inspectierapport voor Broodjeszaak Smakelijk, KVK 66778899, Stationsplein 5 in Zwolle. Hygiëne was niet in orde en er waren overtredingen geconstateerd.",
    ],
    contains: ["1. Welke overtredingen zijn er geconstateerd?"],
  },
  // answers to the clarification, in their many shapes
  {
    turns: [
      "Maak een inspectierapport voor Restaurant Bella Rosa, KVK 92251854",
      "Het adres is Lange Nieuwstraat 12 in Utrecht, hygiëne was in orde en geen overtredingen.",
    ],
    contains: ["- Adres: Lange Nieuwstraat 12, Utrecht", "- Hygiëne in orde: ja", "oordeel: Voldoet)"],
  },
  {
    turns: [
      "Maak een inspectierapport voor Restaurant Bella Rosa, KVK 92251854",
      "1. Oudegracht 50, Utrecht\n2. nee\n3. ja, de afwasmachine haalde geen 60 graden",
    ],
    contains: [
      "- Adres: Oudegracht 50, Utrecht",
      "- Hygiëne in orde: nee",
      "- Toelichting overtredingen: de afwasmachine haalde geen 60 graden",
    ],
  },
  {
    turns: [
      "Maak een inspectierapport voor Restaurant Bella Rosa, KVK 92251854",
      "Vismarkt 3 Leiden. Hygiëne ja. Overtredingen nee.",
    ],
    contains: ["- Adres: Vismarkt 3, Leiden", "oordeel: Voldoet)"],
  },
  {
    turns: [
      "Maak een inspectierapport voor Restaurant Bella Rosa, KVK 92251854",
      "Adres: Breestraat 8, Leiden; hygiëne: nee; overtredingen: ja, kakkerlakken in de keuken",
    ],
    contains: [
      "- Adres: Breestraat 8, Leiden",
      "- Hygiëne in orde: nee",
      "- Toelichting overtredingen: kakkerlakken in de keuken",
    ],
  },
  {
    turns: [
      "Maak een inspectierapport voor Restaurant Bella Rosa, KVK 92251854",
      "Kerkstraat 1, ja, ja: de koelcel stond op 9 graden",
    ],
    contains: ["- Toelichting overtredingen: de koelcel stond op 9 graden", "- Adres: Kerkstraat 1"],
  },
  {
    turns: [
      "Maak een inspectierapport voor Lunchroom Het Zonnetje aan de Kerkstraat 8 in Deventer",
      "kvk 87654321, hygiëne goed, overtredingen: nee",
    ],
    contains: ["- KVK-nummer: 87654321", "oordeel: Voldoet)"],
  },
  {
    turns: [
      "Maak een inspectierapport voor Lunchroom Het Zonnetje aan de Kerkstraat 8 in Deventer",
      "Het KVK-nummer is 8765.4321 en de hygiëne was in orde. Wel een overtreding: de handenwasbak had geen zeep.",
    ],
    contains: ["- KVK-nummer: 87654321", "- Toelichting overtredingen: de handenwasbak had geen zeep"],
  },
  {
    turns: ["Maak een inspectierapport voor Restaurant Bella Rosa, KVK 92251854", "Molenstraat 4 in Breda", "ja, nee"],
    contains: ["- Adres: Molenstraat 4, Breda", "oordeel: Voldoet)"],
  },
  {
    turns: [
      "Rapport voor Slagerij Van der Berg, KVK 2345 6789, Dorpsstraat 3 te Ede. Hygiëne prima, wel een overtreding gezien.",
      "Het gehakt was over de datum",
    ],
    contains: ["- Toelichting overtredingen: Het gehakt was over de datum"],
  },
  {
    turns: [
      "Rapport voor Slagerij Van der Berg, KVK 2345 6789, Dorpsstraat 3 te Ede. Hygiëne prima, wel een overtreding gezien.",
      "ja: thermometer ontbrak en de koeling was 8 graden",
    ],
    contains: ["- Toelichting overtredingen: thermometer ontbrak en de koeling was 8 graden"],
    not: ["ja: thermometer"],
  },
  // replies that are no answer: asked again, nothing stored
  {
    turns: [
      "Maak een inspectierapport voor Restaurant Bella Rosa, KVK 92251854",
      "momentje, ik pak mijn aantekeningen",
    ],
    contains: [Q_ALL_BUT_NAME],
    not: ["- Adres: Momentje"],
  },
  {
    turns: ["Maak een inspectierapport voor Restaurant Bella Rosa, KVK 92251854", "Welk adres bedoel je?"],
    contains: ["is geen antwoord", Q_ALL_BUT_NAME],
  },
  {
    turns: ["Maak een inspectierapport voor Restaurant Bella Rosa, KVK 92251854", "kun je de vragen herhalen?"],
    contains: ["is geen antwoord", Q_ALL_BUT_NAME],
  },
  {
    turns: [
      "Maak een inspectierapport voor Restaurant Bella Rosa, KVK 92251854",
      "Ogenblikje",
      "Spoorlaan 2, Tilburg, ja, nee",
    ],
    contains: ["- Adres: Spoorlaan 2, Tilburg", "oordeel: Voldoet)"],
    not: ["Ogenblikje"],
  },
  {
    turns: ["Maak een inspectierapport voor Restaurant Bella Rosa, KVK 92251854", "ik moet het even nakijken"],
    contains: ["Geen probleem, neem de tijd", Q_ALL_BUT_NAME],
  },
  {
    turns: ["Maak een inspectierapport voor Restaurant Bella Rosa, KVK 92251854", "stop maar"],
    contains: ["Goed, ik stop met verifiëren."],
  },
  // the other agents
  { turns: ["Wat zijn de regels voor het koelen van levensmiddelen?"], contains: ["VW-KOEL-01"] },
  { turns: ["Welke temperatuur moet een koelcel hebben?"], contains: ["VW-KOEL-01"] },
  { turns: ["Wat zegt de wet over allergenen op de menukaart?"], contains: ["Dit zeggen de regels"] },
  { turns: ["Wat is de inspectiehistorie van KVK 92251854?"], contains: ["Inspectiehistorie van"] },
  { turns: ["Hallo"], contains: ["Ik ben de inspectie-assistent."] },
  {
    turns: ["Toon de eerdere inspecties van Restaurant Bella Rosa"],
    contains: ["Inspectiehistorie van Restaurant Bella Rosa"],
  },
];
