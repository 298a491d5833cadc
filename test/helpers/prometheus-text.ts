// A strict parser of the Prometheus text exposition format (0.0.4), for tests: no package installed
// here parses it (prom-client only writes it). It throws on anything Prometheus' own parser refuses
// and on what a scrape would reject later (duplicate series, broken histograms), naming the line.

/** One sample line. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A metric family: its TYPE, HELP and samples (for a histogram: its _bucket, _sum and _count lines). */
export interface MetricFamily {
  name: string;
  type: "counter" | "gauge" | "histogram" | "summary" | "untyped";
  help: string | undefined;
  samples: Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"]);
const SUFFIXES: Record<string, string[]> = { histogram: ["_bucket", "_sum", "_count"], summary: ["_sum", "_count"] };

/** Parses a whole exposition; throws an Error naming the line for anything that is not valid. */
export function parsePrometheusText(text: string): Map<string, MetricFamily> {
  if (text !== "" && !text.endsWith("\n")) throw new Error("the exposition does not end with a newline");
  const families = new Map<string, MetricFamily>();
  const seen = new Set<string>();
  let current: MetricFamily | undefined;
  const familyOf = (name: string, line: number): MetricFamily => {
    let family = families.get(name);
    if (!family) families.set(name, (family = { name, type: "untyped", help: undefined, samples: [] }));
    // Every line of a family comes in one group (the format forbids interleaving).
    if (current !== family && (family.samples.length > 0 || seen.has(`group:${name}`))) {
      throw new Error(`line ${line}: ${name} continues after another family began`);
    }
    current = family;
    seen.add(`group:${name}`);
    return family;
  };

  text.split("\n").forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === "") return;
    if (raw.startsWith("#")) {
      const match = /^#[ \t]+(HELP|TYPE)[ \t]+(\S+)(?:[ \t]+(.*))?$/.exec(raw);
      if (!match) return; // a plain comment
      const [, keyword, name, rest = ""] = match as unknown as [string, "HELP" | "TYPE", string, string | undefined];
      if (!METRIC_NAME.test(name)) throw new Error(`line ${line}: invalid metric name ${JSON.stringify(name)}`);
      const family = familyOf(name, line);
      if (keyword === "HELP") {
        if (family.help !== undefined) throw new Error(`line ${line}: second HELP for ${name}`);
        family.help = unescape(rest, new Set(["\\", "n"]), line);
      } else {
        if (!TYPES.has(rest.trim())) throw new Error(`line ${line}: unknown TYPE ${JSON.stringify(rest)} for ${name}`);
        if (seen.has(`type:${name}`) || family.samples.length > 0) throw new Error(`line ${line}: TYPE for ${name} is repeated or after its samples`);
        seen.add(`type:${name}`);
        family.type = rest.trim() as MetricFamily["type"];
      }
      return;
    }
    const sample = parseSample(raw, line);
    const family = familyOf(familyNameOf(sample.name, families), line);
    const key = `${sample.name}${JSON.stringify(Object.entries(sample.labels).sort())}`;
    if (seen.has(key)) throw new Error(`line ${line}: duplicate series ${key}`);
    seen.add(key);
    if (family.type === "counter" && !(sample.value >= 0)) throw new Error(`line ${line}: counter ${sample.name} is ${sample.value}`);
    family.samples.push(sample);
  });
  for (const family of families.values()) if (family.type === "histogram") checkHistogram(family);
  return families;
}

/** The value of the one sample named `name` whose labels include `labels`; undefined when none, throws when several. */
export function sampleValue(families: Map<string, MetricFamily>, name: string, labels: Record<string, string> = {}): number | undefined {
  const matches = [...families.values()]
    .flatMap((family) => family.samples)
    .filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
  if (matches.length > 1) throw new Error(`${matches.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return matches[0]?.value;
}

// A _bucket/_sum/_count line belongs to its histogram or summary (declared before it by its TYPE).
function familyNameOf(sampleName: string, families: Map<string, MetricFamily>): string {
  for (const [name, family] of families) {
    if ((SUFFIXES[family.type] ?? []).some((suffix) => sampleName === name + suffix)) return name;
  }
  return sampleName;
}

function parseSample(raw: string, line: number): Sample {
  const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(raw)?.[0];
  if (!name) throw new Error(`line ${line}: no metric name in ${JSON.stringify(raw)}`);
  let rest = raw.slice(name.length);
  const labels: Record<string, string> = {};
  if (rest.startsWith("{")) {
    rest = rest.slice(1);
    for (;;) {
      rest = rest.replace(/^[ \t]*/, "");
      if (rest.startsWith("}")) break;
      const pair = /^([a-zA-Z_][a-zA-Z0-9_]*)[ \t]*=[ \t]*"((?:[^"\\\n]|\\.)*)"[ \t]*/.exec(rest);
      if (!pair || !LABEL_NAME.test(pair[1]!)) throw new Error(`line ${line}: malformed label set in ${JSON.stringify(raw)}`);
      if (pair[1]! in labels) throw new Error(`line ${line}: label ${pair[1]} twice`);
      labels[pair[1]!] = unescape(pair[2]!, new Set(["\\", '"', "n"]), line);
      rest = rest.slice(pair[0].length);
      if (rest.startsWith(",")) rest = rest.slice(1);
      else if (!rest.startsWith("}")) throw new Error(`line ${line}: expected , or } in ${JSON.stringify(raw)}`);
    }
    rest = rest.slice(1);
  }
  const fields = /^[ \t]+(\S+)(?:[ \t]+(-?\d+))?[ \t]*$/.exec(rest);
  if (!fields) throw new Error(`line ${line}: expected a value (and an optional timestamp) in ${JSON.stringify(raw)}`);
  return { name, labels, value: parseValue(fields[1]!, line) };
}

function parseValue(text: string, line: number): number {
  // Prometheus reads values with Go's ParseFloat, which takes NaN and Inf(inity) in any case (prom-client writes "Nan").
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(text);
  if (special) return special[2]!.toLowerCase() === "nan" ? NaN : special[1] === "-" ? -Infinity : Infinity;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) throw new Error(`line ${line}: invalid value ${JSON.stringify(text)}`);
  return Number(text);
}

function unescape(text: string, allowed: Set<string>, line: number): string {
  return text.replace(/\\(.?)/g, (_match, next: string) => {
    if (!allowed.has(next)) throw new Error(`line ${line}: invalid escape \\${next}`);
    return next === "n" ? "\n" : next;
  });
}

// Per label set: buckets ascending by le, counts never falling, a +Inf bucket equal to _count, and a _sum.
function checkHistogram(family: MetricFamily): void {
  const series = new Map<string, { buckets: Array<[number, number]>; count?: number; sum?: number }>();
  for (const sample of family.samples) {
    const { le, ...rest } = sample.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    const entry = series.get(key) ?? { buckets: [] };
    series.set(key, entry);
    if (sample.name.endsWith("_bucket")) {
      if (le === undefined) throw new Error(`${sample.name} without le`);
      entry.buckets.push([parseValue(le, 0), sample.value]);
    } else if (sample.name.endsWith("_count")) entry.count = sample.value;
    else if (sample.name.endsWith("_sum")) entry.sum = sample.value;
    else throw new Error(`${sample.name} is not a histogram line of ${family.name}`);
  }
  for (const [key, { buckets, count, sum }] of series) {
    const last = buckets.at(-1);
    if (!last || last[0] !== Infinity || count === undefined || sum === undefined) throw new Error(`${family.name}${key}: needs a +Inf bucket, _sum and _count`);
    if (last[1] !== count) throw new Error(`${family.name}${key}: +Inf bucket ${last[1]} is not _count ${count}`);
    buckets.forEach(([le, value], i) => {
      const previous = buckets[i - 1];
      if (previous && (le <= previous[0] || value < previous[1])) throw new Error(`${family.name}${key}: buckets not cumulative at le=${le}`);
    });
  }
}
