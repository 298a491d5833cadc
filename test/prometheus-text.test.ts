// The test helper that reads /metrics must itself refuse what Prometheus refuses, or the metrics
// test would pass on anything. Cases from the text format's specification and its usual mistakes.
import { describe, expect, it } from "vitest";
import { parsePrometheusText, sampleValue } from "./helpers/prometheus-text.js";

// The example exposition of the Prometheus documentation ("Exposition formats"), abridged.
const GOOD = `# HELP http_requests_total The total number of HTTP requests.
# TYPE http_requests_total counter
http_requests_total{method="post",code="200"} 1027 1395066363000
http_requests_total{method="post",code="400"}    3 1395066363000

# Escaping in label values:
msdos_file_access_time_seconds{path="C:\\\\DIR\\\\FILE.TXT",error="Cannot find file:\\n\\"FILE.TXT\\""} 1.458255915e9

# A histogram, which has a pretty complex representation in the text format:
# HELP http_request_duration_seconds A histogram of the request duration.
# TYPE http_request_duration_seconds histogram
http_request_duration_seconds_bucket{le="0.05"} 24054
http_request_duration_seconds_bucket{le="0.1"} 33444
http_request_duration_seconds_bucket{le="+Inf"} 144320
http_request_duration_seconds_sum 53423
http_request_duration_seconds_count 144320
metric_without_timestamp_and_labels 12.47
something_weird{problem="division by zero"} +Inf -3982045
`;

describe("the Prometheus text parser of the tests", () => {
  it("reads the documentation's example: types, label escapes, histograms", () => {
    const families = parsePrometheusText(GOOD);
    expect(families.get("http_requests_total")?.type).toBe("counter");
    expect(sampleValue(families, "http_requests_total", { code: "400" })).toBe(3);
    expect(families.get("msdos_file_access_time_seconds")?.samples[0]?.labels).toEqual({
      path: "C:\\DIR\\FILE.TXT",
      error: 'Cannot find file:\n"FILE.TXT"',
    });
    expect(families.get("http_request_duration_seconds")?.samples).toHaveLength(5);
    expect(sampleValue(families, "something_weird")).toBe(Infinity);
  });

  it.each([
    ["no newline at the end", "a 1"],
    ["a value that is not a number", "a one\n"],
    ["an unquoted label value", "a{b=c} 1\n"],
    ["an unknown escape in a label value", 'a{b="\\t"} 1\n'],
    ["a label name starting with a digit", 'a{1b="x"} 1\n'],
    ["the same label twice", 'a{b="x",b="y"} 1\n'],
    ["the same series twice", 'a{b="x"} 1\na{b="x"} 2\n'],
    ["an unknown TYPE", "# TYPE a countr\na 1\n"],
    ["a TYPE after the family's samples", "a 1\n# TYPE a counter\n"],
    ["a family split by another", "a 1\nb 1\na{c=\"d\"} 1\n"],
    ["a negative counter", "# TYPE a counter\na -1\n"],
    ["a histogram without +Inf bucket", '# TYPE h histogram\nh_bucket{le="1"} 1\nh_sum 1\nh_count 1\n'],
    ["a histogram whose buckets fall", '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n'],
    ["a histogram whose count differs from +Inf", '# TYPE h histogram\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 1\n'],
  ])("refuses %s", (_what, text) => {
    expect(() => parsePrometheusText(text)).toThrow();
  });
});
