// VOORBEELDINHOUD — SAMPLE CONTENT. Short Dutch summaries written for this demo, loosely based on EU and
// Dutch food-safety rules. They are NOT official legal texts and must not be used as such; the numbers
// and references are illustrative. Consult the official sources (EUR-Lex, wetten.overheid.nl, NVWA).

/**
 * @typedef {{ id: string, title: string, source: string, keywords: string[], text: string }} RegulationArticle
 */

/** The disclaimer every answer from the regulation server carries. */
export const DISCLAIMER =
  "Voorbeeldinhoud voor de Trellis-demo: samenvattingen, geen officiële wettekst. Raadpleeg voor de geldende regels EUR-Lex, wetten.overheid.nl en de NVWA.";

/** @type {RegulationArticle[]} */
export const CORPUS = [
  {
    id: "VW-KOEL-01",
    title: "Gekoeld bewaren van levensmiddelen",
    source: "Voorbeeld, naar Warenwetbesluit Hygiëne van levensmiddelen en Verordening (EG) 852/2004",
    keywords: ["koelen", "koeling", "koelcel", "koelkast", "temperatuur", "7 graden", "bederfelijk"],
    text: "Bederfelijke levensmiddelen worden gekoeld bewaard op ten hoogste 7 °C; de hygiënecodes adviseren vaak 4 °C. De ondernemer meet en registreert de temperatuur van koelingen dagelijks. Een korte onderbreking van de koudeketen bij bereiden en uitserveren is toegestaan, zolang de veiligheid niet in gevaar komt.",
  },
  {
    id: "VW-KOEL-02",
    title: "Invriezen en ontdooien",
    source: "Voorbeeld, naar Verordening (EG) 852/2004, bijlage II, hoofdstuk IX",
    keywords: ["invriezen", "diepvries", "vriezer", "ontdooien", "-18", "temperatuur"],
    text: "Diepvriesproducten worden bewaard op -18 °C of kouder. Ontdooien gebeurt in de koeling of op een andere manier waarbij geen ziekteverwekkers kunnen uitgroeien; ontdooide producten worden niet opnieuw ingevroren.",
  },
  {
    id: "VW-WARM-01",
    title: "Warmhouden en verhitten",
    source: "Voorbeeld, naar de Hygiënecode voor de horeca",
    keywords: ["warmhouden", "verhitten", "bereiden", "60 graden", "au bain-marie", "temperatuur", "opwarmen"],
    text: "Warm gehouden gerechten blijven op 60 °C of warmer. Gerechten die worden afgekoeld, gaan binnen 5 uur van 60 °C naar 7 °C of lager. Opwarmen gebeurt snel tot een kerntemperatuur van ten minste 75 °C.",
  },
  {
    id: "ALL-01",
    title: "Allergeneninformatie aan de consument",
    source: "Voorbeeld, naar Verordening (EU) 1169/2011, artikel 9 en bijlage II",
    keywords: ["allergenen", "allergie", "gluten", "noten", "pinda", "lactose", "informatie", "menukaart", "etiket"],
    text: "Bij onverpakte levensmiddelen, zoals in de horeca, moet de consument informatie kunnen krijgen over de 14 wettelijk aangewezen allergenen (onder meer gluten, schaaldieren, ei, vis, pinda, soja, melk, noten, selderij, mosterd, sesam, sulfiet, lupine en weekdieren). Dat mag mondeling, mits schriftelijke informatie op verzoek beschikbaar is en personeel weet waar die te vinden is.",
  },
  {
    id: "HACCP-01",
    title: "Voedselveiligheidssysteem (HACCP) en hygiënecode",
    source: "Voorbeeld, naar Verordening (EG) 852/2004, artikel 5",
    keywords: ["haccp", "hygiënecode", "voedselveiligheidsplan", "kritische punten", "registratie", "beheersen"],
    text: "Elk levensmiddelenbedrijf werkt met procedures gebaseerd op de HACCP-beginselen: gevaren vaststellen, kritische beheerspunten bepalen, grenswaarden, bewaking, correctieve maatregelen, verificatie en registratie. Een goedgekeurde hygiënecode voor de branche mag als basis dienen.",
  },
  {
    id: "HYG-01",
    title: "Persoonlijke hygiëne en handen wassen",
    source: "Voorbeeld, naar Verordening (EG) 852/2004, bijlage II, hoofdstuk VIII",
    keywords: ["handen wassen", "persoonlijke hygiëne", "personeel", "kleding", "ziek", "hygiëne", "fonteintje"],
    text: "Medewerkers die met levensmiddelen werken, houden zich aan een hoog niveau van persoonlijke hygiëne: schone werkkleding, handen wassen voor het werk en na toiletbezoek of het aanraken van rauwe producten. Er is een handenwasgelegenheid met warm en koud water, zeep en wegwerphanddoekjes. Zieke medewerkers met besmettelijke klachten werken niet met voedsel.",
  },
  {
    id: "HYG-02",
    title: "Schoonmaak en onderhoud van ruimtes en apparatuur",
    source: "Voorbeeld, naar Verordening (EG) 852/2004, bijlage II, hoofdstukken I, II en V",
    keywords: ["schoonmaak", "schoonmaken", "reinigen", "schoonmaakschema", "apparatuur", "vloeren", "hygiëne"],
    text: "Ruimtes, werkbanken en apparatuur die met levensmiddelen in aanraking komen, zijn schoon en in goede staat. Een schoonmaakschema legt vast wat, hoe vaak en door wie wordt gereinigd; reinigingsmiddelen worden gescheiden van levensmiddelen bewaard.",
  },
  {
    id: "HYG-03",
    title: "Kruisbesmetting: rauw en bereid gescheiden",
    source: "Voorbeeld, naar Verordening (EG) 852/2004, bijlage II, hoofdstuk IX",
    keywords: ["kruisbesmetting", "rauw", "bereid", "snijplank", "gescheiden", "vlees", "kip"],
    text: "Rauwe producten (zoals rauw vlees en kip) worden gescheiden van bereide en kant-en-klare producten bewaard en bewerkt, met eigen snijplanken en gereedschap of na grondige reiniging ertussen, om kruisbesmetting te voorkomen.",
  },
  {
    id: "ONG-01",
    title: "Ongediertebestrijding",
    source: "Voorbeeld, naar Verordening (EG) 852/2004, bijlage II, hoofdstuk IX, punt 4",
    keywords: ["ongedierte", "muizen", "ratten", "kakkerlakken", "insecten", "bestrijding", "plaagdieren"],
    text: "De ondernemer neemt passende maatregelen om ongedierte te weren en te bestrijden, bijvoorbeeld met een contract met een erkend bestrijdingsbedrijf, regelmatige controles en registratie van bevindingen. Sporen van ongedierte in productie- of opslagruimtes zijn een ernstige overtreding.",
  },
  {
    id: "TRA-01",
    title: "Traceerbaarheid en terugroepen",
    source: "Voorbeeld, naar Verordening (EG) 178/2002, artikelen 18 en 19",
    keywords: ["traceerbaarheid", "terugroepen", "recall", "leverancier", "herkomst", "onveilig"],
    text: "Een bedrijf weet van wie het levensmiddelen heeft gekregen en aan welke bedrijven het heeft geleverd. Vermoedt het dat een product onveilig is, dan haalt het dat uit de handel, informeert het de NVWA en roept het zo nodig terug bij consumenten.",
  },
  {
    id: "ETI-01",
    title: "Houdbaarheid: THT en TGT",
    source: "Voorbeeld, naar Verordening (EU) 1169/2011, artikel 24",
    keywords: [
      "houdbaarheid",
      "tht",
      "tgt",
      "te gebruiken tot",
      "ten minste houdbaar tot",
      "datum",
      "etiket",
      "verlopen",
    ],
    text: "Een product met een verstreken te-gebruiken-tot-datum (TGT) is onveilig en mag niet meer worden verkocht of verwerkt. Na de ten-minste-houdbaar-tot-datum (THT) mag een product nog worden verkocht, zolang het veilig is en de kwaliteit in orde is.",
  },
  {
    id: "REG-01",
    title: "Registratie van levensmiddelenbedrijven",
    source: "Voorbeeld, naar Verordening (EG) 852/2004, artikel 6",
    keywords: ["registratie", "kvk", "inschrijving", "nvwa", "erkenning", "melden"],
    text: "Levensmiddelenbedrijven zijn geregistreerd; in Nederland gebeurt dat in de regel via de inschrijving bij de Kamer van Koophandel. Sommige activiteiten (zoals het verwerken van dierlijke producten voor andere bedrijven) vereisen een erkenning van de NVWA.",
  },
  {
    id: "INS-01",
    title: "Inspecties, herinspecties en maatregelen",
    source: "Voorbeeld, naar Verordening (EU) 2017/625 en het interventiebeleid van de NVWA",
    keywords: ["inspectie", "herinspectie", "boete", "waarschuwing", "maatregel", "overtreding", "handhaving"],
    text: "Bij een overtreding kan de toezichthouder een schriftelijke waarschuwing, een bestuurlijke boete of een herinspectie opleggen; bij ernstige risico's kan een bedrijf (gedeeltelijk) worden stilgelegd. Een herinspectie gaat op kosten van het bedrijf.",
  },
  {
    id: "WAT-01",
    title: "Drinkwater en ijs",
    source: "Voorbeeld, naar Verordening (EG) 852/2004, bijlage II, hoofdstuk VII",
    keywords: ["water", "drinkwater", "ijs", "ijsblokjes", "ijsmachine"],
    text: "Water dat in of met levensmiddelen wordt gebruikt, is drinkwater. IJs dat met levensmiddelen in aanraking komt, wordt van drinkwater gemaakt en hygiënisch bereid en bewaard; ijsmachines worden regelmatig gereinigd.",
  },
];
