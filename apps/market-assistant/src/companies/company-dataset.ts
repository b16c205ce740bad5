/** A sector; sectors form a tree (`parentId`), e.g. Banks under Financials. */
export interface SectorRecord {
  id: string;
  name: string;
  parentId: string | null;
  /** Words a question may use for the sector ("banks", "banking"), lower case. */
  aliases: readonly string[];
}

/** A company: a node of the ownership graph. Unlisted subsidiaries have no market capitalisation. */
export interface CompanyRecord {
  /** The exchange ticker for listed companies, a short code otherwise. */
  id: string;
  name: string;
  sectorId: string;
  listed: boolean;
  /** Market capitalisation in millions of the dataset's currency; `null` when unlisted. */
  marketCap: number | null;
  /** Other names a question may use ("John Keells", "JKH"). */
  aliases: readonly string[];
  description: string;
}

/** An edge of the ownership graph: `parentId` holds `percentage` % of `childId`. */
export interface OwnershipRecord {
  parentId: string;
  childId: string;
  percentage: number;
}

/** One fiscal year of a company's headline figures (money in millions, ratios in %, P/E in times). */
export interface FinancialRecord {
  companyId: string;
  fiscalYear: number;
  revenue: number;
  netProfit: number;
  totalAssets: number;
  /** Return on equity, %. */
  roe: number;
  /** Price to earnings, times. */
  peRatio: number;
  /** Dividend yield, %. */
  dividendYield: number;
}

/** Everything the company graph database holds. */
export interface CompanyDataset {
  /** Shown with every answer drawn from this dataset. */
  notice: string;
  /** Currency of money amounts (which are in millions). */
  currency: string;
  sectors: readonly SectorRecord[];
  companies: readonly CompanyRecord[];
  ownership: readonly OwnershipRecord[];
  financials: readonly FinancialRecord[];
}

/**
 * The notice every answer drawn from {@link SAMPLE_DATASET} carries.
 *
 * @example
 * answer.includes(SAMPLE_DATA_NOTICE); // true for answers from the sample dataset
 */
export const SAMPLE_DATA_NOTICE =
  "SAMPLE DATA: illustrative figures for demonstration only, not real market data; do not use for investment decisions.";

const sector = (id: string, name: string, parentId: string | null, aliases: string[]): SectorRecord => ({
  id,
  name,
  parentId,
  aliases,
});

const listed = (
  id: string,
  name: string,
  sectorId: string,
  marketCap: number,
  aliases: string[],
  description: string,
): CompanyRecord => ({ id, name, sectorId, listed: true, marketCap, aliases, description });

const unlisted = (
  id: string,
  name: string,
  sectorId: string,
  aliases: string[],
  description: string,
): CompanyRecord => ({ id, name, sectorId, listed: false, marketCap: null, aliases, description });

/** [company, revenue, net profit, total assets, ROE %, P/E, dividend yield %] for fiscal year 2024. */
const FY2024: readonly [string, number, number, number, number, number, number][] = [
  ["JKH", 276_000, 12_800, 890_000, 3.9, 25.8, 1.2],
  ["CTC", 150_000, 25_000, 60_000, 95.0, 9.1, 10.5],
  ["COMB", 195_000, 48_000, 3_100_000, 15.2, 4.0, 6.1],
  ["LOLC", 310_000, 44_000, 1_700_000, 16.0, 4.0, 0.8],
  ["HNB", 170_000, 40_000, 2_350_000, 13.1, 3.1, 5.4],
  ["MELS", 160_000, 18_000, 330_000, 11.5, 6.6, 5.0],
  ["DIAL", 180_000, 19_500, 420_000, 13.4, 5.5, 3.9],
  ["SAMP", 120_000, 28_000, 1_600_000, 14.3, 3.4, 7.0],
  ["DIST", 140_000, 21_000, 180_000, 18.0, 4.0, 6.5],
  ["EXPO", 240_000, 9_500, 130_000, 12.0, 8.3, 3.0],
  ["LOFC", 90_000, 16_000, 480_000, 20.5, 4.3, 1.0],
  ["SLTL", 110_000, 4_200, 300_000, 3.2, 14.5, 1.5],
  ["HAYL", 460_000, 6_900, 390_000, 7.5, 8.4, 2.4],
  ["CCS", 120_000, 4_700, 60_000, 22.0, 11.5, 3.8],
  ["NTB", 52_000, 11_500, 600_000, 17.8, 2.7, 4.2],
  ["HAYC", 48_000, 4_300, 42_000, 15.5, 6.7, 4.0],
  ["DIPD", 68_000, 3_100, 55_000, 10.2, 7.7, 3.5],
  ["UAL", 28_000, 3_600, 95_000, 18.9, 5.3, 6.8],
  ["AHPL", 11_000, 900, 40_000, 3.0, 13.9, 0.9],
  ["TRAN", 8_500, 650, 22_000, 4.8, 15.1, 1.1],
  ["KFP", 16_000, 520, 9_000, 8.2, 8.1, 2.9],
  ["ECL", 1_050, 310, 1_400, 28.6, 6.8, 4.8],
];

/**
 * SAMPLE DATA. A small graph of companies listed on the Colombo Stock Exchange, with sectors,
 * subsidiaries, ownership percentages, market capitalisation (LKR millions) and fiscal-2024 metrics.
 * Company names are real so that the seed's questions ("Tell me about John Keells") make sense, but
 * every figure and percentage is invented or rounded for demonstration: it is not market data.
 *
 * @example
 * const db = await openSqliteDatabase(":memory:");
 * await installCompanyGraph(db, SAMPLE_DATASET);
 */
export const SAMPLE_DATASET: CompanyDataset = {
  notice: SAMPLE_DATA_NOTICE,
  currency: "LKR",
  sectors: [
    sector("financials", "Financials", null, ["financials", "financial sector", "financial services"]),
    sector("banks", "Banks", "financials", ["banks", "bank", "banking", "banking sector", "banking companies"]),
    sector("diversified-financials", "Diversified Financials", "financials", [
      "diversified financials",
      "finance companies",
      "leasing",
    ]),
    sector("insurance", "Insurance", "financials", ["insurance", "insurers", "insurance companies"]),
    sector("technology", "Technology", null, [
      "technology",
      "tech",
      "technology companies",
      "tech companies",
      "technology sector",
    ]),
    sector("telecommunication", "Telecommunication Services", "technology", [
      "telecommunication",
      "telecommunications",
      "telecom",
      "telecoms",
    ]),
    sector("software", "Software & Services", "technology", ["software", "it services", "software companies"]),
    sector("capital-goods", "Capital Goods", null, [
      "capital goods",
      "conglomerates",
      "conglomerate",
      "diversified holdings",
    ]),
    sector("consumer-staples", "Food, Beverage & Tobacco", null, [
      "food",
      "beverage",
      "beverages",
      "tobacco",
      "consumer staples",
    ]),
    sector("food-retailing", "Food & Staples Retailing", "consumer-staples", ["retail", "retailers", "supermarkets"]),
    sector("consumer-services", "Consumer Services", null, [
      "hotels",
      "hotel",
      "leisure",
      "tourism",
      "consumer services",
    ]),
    sector("materials", "Materials", null, ["materials"]),
    sector("transportation", "Transportation", null, ["transportation", "logistics", "shipping"]),
  ],
  companies: [
    listed(
      "JKH",
      "John Keells Holdings PLC",
      "capital-goods",
      330_000,
      ["John Keells", "JKH", "Keells"],
      "Diversified conglomerate: transportation, consumer foods, retail, leisure, property, financial services and IT.",
    ),
    listed(
      "CTC",
      "Ceylon Tobacco Company PLC",
      "consumer-staples",
      228_000,
      ["Ceylon Tobacco", "CTC"],
      "Manufactures and markets tobacco products.",
    ),
    listed(
      "COMB",
      "Commercial Bank of Ceylon PLC",
      "banks",
      192_000,
      ["Commercial Bank", "ComBank"],
      "Licensed commercial bank with retail, corporate and international operations.",
    ),
    listed(
      "LOLC",
      "LOLC Holdings PLC",
      "diversified-financials",
      176_000,
      ["LOLC"],
      "Financial services group: leasing, microfinance and insurance, at home and abroad.",
    ),
    listed(
      "HNB",
      "Hatton National Bank PLC",
      "banks",
      124_000,
      ["Hatton National Bank", "Hatton National", "HNB"],
      "Licensed commercial bank.",
    ),
    listed("MELS", "Melstacorp PLC", "consumer-staples", 118_000, ["Melstacorp"], "Beverage-led diversified group."),
    listed(
      "DIAL",
      "Dialog Axiata PLC",
      "telecommunication",
      108_000,
      ["Dialog Axiata", "Dialog"],
      "Mobile, fixed and broadband telecommunication operator.",
    ),
    listed("SAMP", "Sampath Bank PLC", "banks", 96_000, ["Sampath Bank", "Sampath"], "Licensed commercial bank."),
    listed(
      "DIST",
      "Distilleries Company of Sri Lanka PLC",
      "consumer-staples",
      84_000,
      ["Distilleries", "DCSL"],
      "Producer of spirits.",
    ),
    listed(
      "EXPO",
      "Expolanka Holdings PLC",
      "transportation",
      79_000,
      ["Expolanka"],
      "Freight forwarding and logistics.",
    ),
    listed(
      "LOFC",
      "LOLC Finance PLC",
      "diversified-financials",
      68_000,
      ["LOLC Finance"],
      "Licensed finance company: leasing, loans and deposits.",
    ),
    listed(
      "SLTL",
      "Sri Lanka Telecom PLC",
      "telecommunication",
      61_000,
      ["Sri Lanka Telecom", "SLT"],
      "Fixed-line, broadband and (through Mobitel) mobile operator.",
    ),
    listed(
      "HAYL",
      "Hayleys PLC",
      "capital-goods",
      58_000,
      ["Hayleys"],
      "Diversified conglomerate: agriculture, gloves, activated carbon, textiles, leisure.",
    ),
    listed(
      "CCS",
      "Ceylon Cold Stores PLC",
      "consumer-staples",
      54_000,
      ["Ceylon Cold Stores", "Cold Stores", "CCS"],
      "Beverages and frozen confectionery; owns the Keells supermarket chain.",
    ),
    listed(
      "NTB",
      "Nations Trust Bank PLC",
      "banks",
      31_000,
      ["Nations Trust Bank", "Nations Trust", "NTB"],
      "Licensed commercial bank, strong in cards.",
    ),
    listed("HAYC", "Haycarb PLC", "materials", 29_000, ["Haycarb"], "Coconut-shell activated carbon."),
    listed("DIPD", "Dipped Products PLC", "materials", 24_000, ["Dipped Products"], "Rubber gloves."),
    listed("UAL", "Union Assurance PLC", "insurance", 19_000, ["Union Assurance"], "Life insurance."),
    listed(
      "AHPL",
      "Asian Hotels and Properties PLC",
      "consumer-services",
      12_500,
      ["Asian Hotels"],
      "City hotels and a shopping mall in Colombo.",
    ),
    listed(
      "TRAN",
      "Trans Asia Hotels PLC",
      "consumer-services",
      9_800,
      ["Trans Asia Hotels", "Trans Asia"],
      "City hotel in Colombo.",
    ),
    listed(
      "KFP",
      "Keells Food Products PLC",
      "consumer-staples",
      4_200,
      ["Keells Food Products", "Keells Food"],
      "Processed meat and bakery products.",
    ),
    listed(
      "ECL",
      "E-Channelling PLC",
      "software",
      2_100,
      ["E-Channelling", "eChannelling"],
      "Online doctor-appointment and health services platform.",
    ),
    unlisted(
      "JKIT",
      "John Keells Information Technology (Pvt) Ltd",
      "software",
      ["John Keells IT", "JKIT"],
      "IT services and digital transformation.",
    ),
    unlisted(
      "JMSL",
      "JayKay Marketing Services (Pvt) Ltd",
      "food-retailing",
      ["JayKay Marketing", "Keells Super"],
      "Operates the Keells supermarket chain.",
    ),
    unlisted("MOBI", "Mobitel (Pvt) Ltd", "telecommunication", ["Mobitel"], "Mobile operator."),
    unlisted("PURI", "Puritas (Pvt) Ltd", "materials", ["Puritas"], "Water and waste-water treatment."),
  ],
  ownership: [
    { parentId: "JKH", childId: "CCS", percentage: 81.3 },
    { parentId: "JKH", childId: "KFP", percentage: 89.2 },
    { parentId: "JKH", childId: "AHPL", percentage: 78.6 },
    { parentId: "JKH", childId: "TRAN", percentage: 84.1 },
    { parentId: "JKH", childId: "UAL", percentage: 98.8 },
    { parentId: "JKH", childId: "NTB", percentage: 20.0 },
    { parentId: "JKH", childId: "JKIT", percentage: 100 },
    { parentId: "CCS", childId: "JMSL", percentage: 100 },
    { parentId: "HAYL", childId: "HAYC", percentage: 67.7 },
    { parentId: "HAYL", childId: "DIPD", percentage: 43.1 },
    { parentId: "HAYC", childId: "PURI", percentage: 100 },
    { parentId: "LOLC", childId: "LOFC", percentage: 76.0 },
    { parentId: "MELS", childId: "DIST", percentage: 91.0 },
    { parentId: "SLTL", childId: "MOBI", percentage: 100 },
    { parentId: "MOBI", childId: "ECL", percentage: 90.5 },
  ],
  financials: FY2024.map(([companyId, revenue, netProfit, totalAssets, roe, peRatio, dividendYield]) => ({
    companyId,
    fiscalYear: 2024,
    revenue,
    netProfit,
    totalAssets,
    roe,
    peRatio,
    dividendYield,
  })),
};
