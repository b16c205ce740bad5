/**
 * The offline model's shop-floor knowledge: a few common jobs with complete Hungarian TWI content.
 * A request that names one of them (in Hungarian or English) gets a full draft without listing steps.
 */
import type { TwiDocument } from "../twi-document.js";

/**
 * A known job: the words that name it, and its instruction.
 *
 * @example
 * CATALOGUE.find((job) => job.match.test("pallet wrapping"))?.doc.title;
 */
export interface CatalogueJob {
  id: string;
  match: RegExp;
  doc: Omit<TwiDocument, "notes">;
}

/**
 * The known jobs.
 *
 * @example
 * CATALOGUE.map((job) => job.id); // ["torque", "pallet", "solder", "caliper", "startup"]
 */
export const CATALOGUE: readonly CatalogueJob[] = [
  {
    id: "torque",
    match:
      /nyomaték|csavar\p{L}*\s+meghúz|meghúzás\p{L}*\s+\p{L}*\s*csavar|csavarkötés|\d+\s*nm(?![\p{L}])|torque|tighten\p{L}*\s+(?:the\s+)?(?:m\d+\s+)?bolts?|bolting/iu,
    doc: {
      title: "Csavarkötés meghúzása nyomatékkulccsal",
      goal: "A csavarkötések az előírt nyomatékkal, egyenletesen és ellenőrizhetően legyenek meghúzva, menetsérülés nélkül.",
      materials: [
        "Kalibrált nyomatékkulcs (érvényes kalibrálási címkével)",
        "Megfelelő méretű dugókulcsfej",
        "Az előírt csavarok és alátétek",
        "Nyomatéktáblázat vagy a rajz szerinti előírás",
        "Jelölő filc",
      ],
      safety: [
        "Védőkesztyű és védőszemüveg viselése kötelező.",
        "A berendezést a munka előtt áramtalanítsa és zárja ki (LOTO).",
        "A nyomatékkulcsot ne használja csavarbontásra, és a szárát ne hosszabbítsa meg.",
      ],
      steps: [
        {
          action: "Ellenőrizze a nyomatékkulcs kalibrálási címkéjét és az előírt nyomatékértéket.",
          keyPoints: ["a kalibrálás érvényessége nem járt le", "a nyomatékot a rajzról vagy a táblázatból olvassa le"],
          rationale: "Lejárt kalibrálású kulccsal vagy rossz értékkel a kötés laza vagy túlhúzott lesz.",
        },
        {
          action: "Helyezze be a csavarokat, és kézzel húzza meg őket ütközésig.",
          keyPoints: ["a menet akadás nélkül járjon", "az alátét a csavarfej alatt legyen"],
          rationale: "A kézi behajtás megelőzi a ferde menetindítást és a menetsérülést.",
        },
        {
          action: "Állítsa be a kulcson az előírt nyomatékot, és rögzítse a beállítást.",
          keyPoints: ["a skálát szemmagasságból olvassa le", "a rögzítőgyűrű legyen zárva"],
          rationale: "A rögzítetlen beállítás munka közben elállítódhat.",
        },
        {
          action: "Húzza meg a csavarokat kereszt (csillag) sorrendben, egyenletes húzással a kattanásig.",
          keyPoints: ["a kulcsot a markolat közepén fogja", "a kattanás után azonnal álljon meg, ne húzzon rá"],
          rationale: "A kereszt sorrend egyenletes felfekvést ad; a ráhúzás túlhúzza a kötést.",
        },
        {
          action: "Jelölje meg filccel a meghúzott csavarokat, és állítsa a kulcsot a legkisebb értékre.",
          keyPoints: ["a jel a csavarfejen és az alkatrészen is látszódjon", "a kulcsot a tokjában tárolja"],
          rationale: "A jel mutatja, hogy a kötés kész; a rugó tehermentesítése megőrzi a kulcs pontosságát.",
        },
      ],
      qualityChecks: [
        "Minden csavar meg van jelölve.",
        "Szúrópróba nyomatékkulccsal: a csavar az előírt érték alatt nem fordul tovább.",
        "A felfekvés egyenletes, nincs sérült menet.",
      ],
    },
  },
  {
    id: "pallet",
    match: /raklap|fóliáz|stretch|pallet/iu,
    doc: {
      title: "Raklap kézi stretch-fóliázása",
      goal: "A raklapon lévő áru szállítás közben stabil, sérülésmentes és nedvesség ellen védett legyen.",
      materials: [
        "Stretch fólia tekercs kézi adagolóval",
        "Raklap az előkészített áruval",
        "Biztonsági vágókés (visszahúzható pengével)",
        "Raklapcímke",
      ],
      safety: [
        "Védőkesztyű és biztonsági lábbeli viselése kötelező.",
        "Fóliázás közben ne lépjen hátrafelé; a raklap körül ne legyen akadály.",
        "A vágókést mindig magától elfelé húzza.",
      ],
      steps: [
        {
          action: "Ellenőrizze a rakat stabilitását, és hogy az áru nem lóg túl a raklap szélén.",
          keyPoints: ["a nehezebb dobozok legyenek alul", "a rakat teteje legyen vízszintes"],
          rationale: "Instabil vagy túllógó rakatot a fólia sem tart meg szállítás közben.",
        },
        {
          action: "Rögzítse a fólia végét a raklap egyik sarkánál a raklap lécéhez.",
          keyPoints: ["a fóliát csavarja a léc köré", "a rögzítés a raklap alsó részén legyen"],
          rationale: "Az alsó rögzítés köti össze az árut a raklappal.",
        },
        {
          action: "Tekerjen az alján legalább három kört, a fóliát feszesen tartva.",
          keyPoints: ["a fólia a raklapot és az alsó dobozsort is fedje", "egyenletes feszítés, szakadás nélkül"],
          rationale: "Az alsó körök akadályozzák meg, hogy a rakat lecsússzon a raklapról.",
        },
        {
          action: "Haladjon felfelé spirálisan, minden körben a fólia felét átfedve.",
          keyPoints: ["kb. 50%-os átfedés", "a tetején tekerjen két kört"],
          rationale: "Az átfedés egyenletes szorítóerőt és nedvesség elleni védelmet ad.",
        },
        {
          action: "Vágja el a fóliát, simítsa rá a végét, és ragassza fel a raklapcímkét.",
          keyPoints: ["a fólia vége ne lógjon szabadon", "a címke két oldalról látható legyen"],
          rationale: "A lógó fólia beakadhat a targoncába; címke nélkül az áru nem azonosítható.",
        },
      ],
      qualityChecks: [
        "A rakat kézzel megbillentve sem mozdul el a raklapon.",
        "Nincs szakadás vagy laza fóliarész.",
        "A címke olvasható, és egyezik a szállítólevéllel.",
      ],
    },
  },
  {
    id: "solder",
    match: /forraszt|solder/iu,
    doc: {
      title: "Furatszerelt alkatrész kézi forrasztása",
      goal: "Az alkatrész kivezetései fényes, homorú, teljes körű forrasztással, hidegforrasztás és zárlat nélkül kapcsolódjanak a nyomtatott áramkörhöz.",
      materials: [
        "Hőfokszabályzós forrasztópáka megfelelő heggyel",
        "Ólommentes forrasztóón folyasztószeres maggal",
        "Nedves pákatisztító szivacs vagy fémforgács-tisztító",
        "Oldalcsípő fogó",
        "ESD csuklópánt és ESD alátét",
      ],
      safety: [
        "ESD csuklópánt viselése kötelező, a munkaállomás legyen földelve.",
        "Védőszemüveget viseljen; a forró pákahegyhez ne érjen.",
        "Az elszívó legyen bekapcsolva a folyasztószer füstje miatt.",
      ],
      steps: [
        {
          action: "Állítsa a pákát az előírt hőfokra, és tisztítsa meg a hegyét.",
          keyPoints: ["ólommentes ónhoz kb. 350 °C, ha a munkautasítás mást nem ír", "a hegy legyen fényes, ónozott"],
          rationale: "Tiszta, ónozott heggyel gyors és egyenletes a hőátadás.",
        },
        {
          action: "Helyezze be az alkatrészt a furatokba a jelölés szerint.",
          keyPoints: ["polaritás és irány a beültetési rajz szerint", "az alkatrész feküdjön fel a lapra"],
          rationale: "A fordított vagy elálló alkatrész hibás működést és rezgési törést okoz.",
        },
        {
          action: "Melegítse egyszerre a forrszemet és a kivezetést, majd adagolja az ónt a kötéshez.",
          keyPoints: ["az ónt a kötéshez, ne a pákahegyhez érintse", "egy kötés ideje legfeljebb 3 másodperc"],
          rationale: "Így folyik szét az ón a két fémen; a hosszú melegítés leválasztja a forrszemet.",
        },
        {
          action: "Vegye el az ónt, majd a pákát, és hagyja mozdulatlanul kihűlni a kötést.",
          keyPoints: ["hűlés közben ne mozdítsa az alkatrészt"],
          rationale: "A mozgatás hidegforrasztást okoz.",
        },
        {
          action: "Csípje le a kivezetést a forrasztás felett.",
          keyPoints: ["a levágott vég ne repüljön el (fogja le ujjal)", "kb. 1–1,5 mm maradjon"],
          rationale: "A szabadon repülő darab zárlatot és szemsérülést okozhat.",
        },
      ],
      qualityChecks: [
        "A forrasztás fényes, homorú, és körben teljesen fedi a forrszemet.",
        "Nincs ónhíd a szomszédos forrszemek között.",
        "Az alkatrész iránya és polaritása a rajznak megfelel.",
      ],
    },
  },
  {
    id: "caliper",
    match: /tolómér|subler|caliper|calliper|vernier/iu,
    doc: {
      title: "Külső átmérő mérése digitális tolómérővel",
      goal: "A munkadarab külső átmérőjét a dolgozó megismételhetően, ±0,02 mm pontossággal mérje és dokumentálja.",
      materials: [
        "Kalibrált digitális tolómérő (érvényes címkével)",
        "Tiszta, szöszmentes törlőkendő",
        "A munkadarab rajza a tűréssel",
        "Mérési jegyzőkönyv",
      ],
      safety: [
        "Éles sorjájú munkadarabot védőkesztyűben fogjon meg.",
        "Forgó gépen lévő munkadarabot soha ne mérjen: a gép álljon.",
      ],
      steps: [
        {
          action: "Tisztítsa meg a mérőpofákat és a munkadarab mérendő felületét.",
          keyPoints: ["forgács és olaj ne maradjon a felületen"],
          rationale: "A szennyeződés vastagsága hozzáadódik a mért értékhez.",
        },
        {
          action: "Zárja össze a pofákat, és nullázza a tolómérőt.",
          keyPoints: ["zárt pofák között ne látszódjon fény", "a kijelző 0,00 mm-t mutasson"],
          rationale: "Hibás nullpont minden mérést ugyanannyival eltolna.",
        },
        {
          action: "Fogja a pofák közé a munkadarabot merőlegesen, a legnagyobb átmérőnél.",
          keyPoints: [
            "a pofák mélyen fogjanak, ne a csúcsukkal",
            "a mérőerő a görgővel legyen egyenletes, ne szorítsa",
          ],
          rationale: "Ferde vagy túl erős fogás hamis, kisebb értéket ad.",
        },
        {
          action:
            "Olvassa le az értéket, ismételje meg a mérést 90°-kal elforgatva, és írja be mindkettőt a jegyzőkönyvbe.",
          keyPoints: ["a két érték eltérése mutatja az ovalitást"],
          rationale: "Egyetlen mérés nem mutatja ki a kör alaktól való eltérést.",
        },
      ],
      qualityChecks: [
        "Mindkét mért érték a rajzi tűrésen belül van.",
        "A jegyzőkönyvben szerepel a tolómérő azonosítója és a mérés ideje.",
      ],
    },
  },
  {
    id: "startup",
    match: /műszak eleji|indítás előtti|gépindítás|start-?up check|pre-?start|before starting the machine/iu,
    doc: {
      title: "Gép műszak eleji, indítás előtti ellenőrzése",
      goal: "A gép csak akkor induljon el, ha a védőberendezések, a kenés és a vezérlés rendben vannak, és az eltéréseket a műszakvezető még indítás előtt megismeri.",
      materials: ["A gép ellenőrző lapja (checklist)", "Zseblámpa", "Tiszta törlőkendő"],
      safety: [
        "Ellenőrzés közben a gép legyen kikapcsolt, nyugalmi állapotban.",
        "A védőburkolatokat az ellenőrzéshez ne szerelje le.",
        "Hibás vészleállító esetén a gépet tilos elindítani.",
      ],
      steps: [
        {
          action: "Nézze át a gép környezetét és a munkaterületet.",
          keyPoints: ["a padlón ne legyen olaj, szerszám vagy akadály", "a közlekedőút legyen szabad"],
          rationale: "A botlás és csúszás a leggyakoribb üzemi baleset.",
        },
        {
          action: "Ellenőrizze a védőburkolatokat és a biztonsági reteszeket.",
          keyPoints: ["minden burkolat a helyén és rögzítve", "nyitott ajtónál a gép nem indítható"],
          rationale: "A védőberendezés választja el a kezelőt a mozgó részektől.",
        },
        {
          action: "Ellenőrizze a kenőanyag- és hűtőfolyadék-szintet a jelölések szerint.",
          keyPoints: ["a szint a MIN és MAX jel között legyen"],
          rationale: "Kenés nélkül a gép kopik és meghibásodik.",
        },
        {
          action: "Kapcsolja be a gépet, és próbálja ki a vészleállítót.",
          keyPoints: ["a vészleállító megnyomására minden mozgás azonnal álljon le"],
          rationale: "Baj esetén a vészleállító az utolsó védelem.",
        },
        {
          action: "Töltse ki és írja alá az ellenőrző lapot, az eltéréseket jelentse a műszakvezetőnek.",
          keyPoints: ["eltérés esetén a gépet ne indítsa termelésre"],
          rationale: "A dokumentált ellenőrzés visszakövethető, és a hiba még a termelés előtt kiderül.",
        },
      ],
      qualityChecks: [
        "Az ellenőrző lap minden sora ki van töltve és alá van írva.",
        "A vészleállító próbája sikeres volt.",
      ],
    },
  },
];

/**
 * The known job a text names, if any.
 *
 * @example
 * findCatalogueJob("Write a TWI for pallet wrapping")?.id; // "pallet"
 */
export function findCatalogueJob(text: string): CatalogueJob | undefined {
  return CATALOGUE.find((job) => job.match.test(text));
}
