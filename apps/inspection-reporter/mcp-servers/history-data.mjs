// VOORBEELDGEGEVENS — SAMPLE DATA. Invented companies and inspections for the demo; any resemblance to
// real businesses or KVK numbers is accidental.

/**
 * @typedef {{ date: string, type: "regulier" | "herinspectie" | "klacht", inspector: string,
 *   result: "voldoet" | "voldoet niet", findings: string[] }} PastInspection
 * @typedef {{ kvk_number: string, name: string, address: string, sector: string,
 *   inspections: PastInspection[] }} CompanyHistory
 */

/** @type {CompanyHistory[]} */
export const COMPANIES = [
  {
    kvk_number: "92251854",
    name: "Restaurant Bella Rosa",
    address: "Hoofdstraat 2, 1234 AB Voorbeelddorp",
    sector: "horeca — restaurant",
    inspections: [
      {
        date: "2024-03-12",
        type: "regulier",
        inspector: "M. de Vries",
        result: "voldoet niet",
        findings: ["Koelcel op 9 °C (max. 7 °C)", "Geen temperatuurregistratie bijgehouden"],
      },
      {
        date: "2024-05-02",
        type: "herinspectie",
        inspector: "M. de Vries",
        result: "voldoet",
        findings: ["Koelcel op 4 °C", "Temperatuurregistratie op orde"],
      },
      {
        date: "2025-01-20",
        type: "regulier",
        inspector: "S. Bakker",
        result: "voldoet",
        findings: ["Allergeneninformatie aanwezig", "Schoonmaakschema gevolgd"],
      },
    ],
  },
  {
    kvk_number: "12345678",
    name: "Bakkerij De Gouden Korst",
    address: "Kerkstraat 5, 3511 AA Utrecht",
    sector: "ambachtelijke bakkerij",
    inspections: [
      {
        date: "2023-11-08",
        type: "regulier",
        inspector: "J. Jansen",
        result: "voldoet",
        findings: ["Geen bijzonderheden"],
      },
    ],
  },
  {
    kvk_number: "87654321",
    name: "Snackbar 't Hoekje",
    address: "Dorpsplein 14, 9711 AB Groningen",
    sector: "horeca — snackbar",
    inspections: [
      {
        date: "2024-08-15",
        type: "klacht",
        inspector: "A. Visser",
        result: "voldoet niet",
        findings: ["Frituurvet niet tijdig ververst", "Muizenkeutels in opslagruimte"],
      },
    ],
  },
  {
    kvk_number: "55501234",
    name: "Viswinkel Het Anker",
    address: "Havenkade 3, 1781 AA Den Helder",
    sector: "detailhandel — vis",
    inspections: [],
  },
];
