// Escaping by construction: views build HTML only through `html`, which escapes every interpolation
// (html-template-tag does the escaping) unless the value is itself HTML made by `html`.
import htmlTemplateTag from "html-template-tag";

// The attributes html-template-tag treats as URIs (its own list), at the point of an interpolation.
const URI_ATTRIBUTE =
  /(?:action|archive|background|cite|classid|codebase|content|data|dynsrc|formaction|href|icon|imagesrcset|longdesc|lowsrc|manifest|nohref|onload|poster|popovertargetaction|profile|src|srcset|style|usemap)="?$/i;

/** A fragment of HTML that is safe to insert as is: made by `html`, `url` or `join`. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/** What a template may interpolate: text (escaped), numbers, nothing, or fragments made by `html`. */
export type Interpolation = string | number | boolean | null | undefined | SafeHtml | readonly SafeHtml[];

/**
 * Tagged template returning SafeHtml. Text is escaped; `SafeHtml` and arrays of it are inserted as
 * they are; `null`, `undefined` and `false` print nothing. html-template-tag inserts *arrays* of plain
 * strings unescaped and drops values in URI attributes, so this wrapper hands it only escaped text
 * or fragments, and URI attributes are written `href="$${url(…)}"` with a checked URL.
 */
export function html(literals: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  const prepared = values.map((value, index): string | string[] => {
    // `$${…}` is html-template-tag's "insert unescaped": allowed only for fragments we made.
    const unescaped = literals.raw[index]!.endsWith("$");
    // html-template-tag would silently drop it (with a console warning): fail loudly instead.
    if (!unescaped && URI_ATTRIBUTE.test(literals.raw[index]!)) throw new TypeError('html: write URI attributes as href="$${url(…)}"');
    if (value instanceof SafeHtml) return unescaped ? value.value : [value.value];
    if (Array.isArray(value)) {
      if (!value.every((item) => item instanceof SafeHtml)) throw new TypeError("html: a list must hold html fragments");
      return [value.map((item) => item.value).join("")];
    }
    if (unescaped) throw new TypeError("html: $${…} takes only html fragments");
    return value === null || value === undefined || value === false ? "" : String(value);
  });
  return new SafeHtml(htmlTemplateTag(literals, ...prepared));
}

/**
 * A URL for `href`/`action`/`src`: a path on this server (`/…`, never `//…`) or an http(s) address,
 * escaped for the attribute. Anything else (`javascript:`, `data:`) becomes `#`.
 */
export function url(value: string): SafeHtml {
  const safe = /^\/(?![/\\])/.test(value) || /^https?:\/\//i.test(value) ? value : "#";
  return html`${safe}`;
}

/** Joins fragments with a separator fragment. */
export function join(items: readonly SafeHtml[], separator: SafeHtml = html``): SafeHtml {
  return new SafeHtml(items.map((item) => item.value).join(separator.value));
}
