/**
 * Splits one CSV line into fields (RFC 4180 quoting on one line): a field may be wrapped in double quotes,
 * inside which the delimiter is literal and `""` is one quote; unquoted fields are trimmed of surrounding
 * blanks. Returns the fields, or a string describing the problem (an unterminated quote: fields spanning
 * lines are not supported; text after a closing quote). O(line length).
 */
export function splitCsvLine(line: string, delimiter: string): string[] | string {
  const fields: string[] = [];
  const length = line.length;
  let i = 0;
  for (;;) {
    while (i < length && (line[i] === " " || line[i] === "\t") && line[i] !== delimiter) i++;
    if (line[i] === '"') {
      let value = "";
      let j = i + 1;
      for (;;) {
        const close = line.indexOf('"', j);
        if (close < 0)
          return `unterminated quoted field ${fields.length + 1} (fields spanning lines are not supported)`;
        value += line.slice(j, close);
        if (line[close + 1] === '"') {
          value += '"';
          j = close + 2;
        } else {
          j = close + 1;
          break;
        }
      }
      while (j < length && (line[j] === " " || line[j] === "\t") && line[j] !== delimiter) j++;
      if (j < length && line[j] !== delimiter)
        return `text after the closing quote of field ${fields.length + 1}`;
      fields.push(value);
      if (j >= length) return fields;
      i = j + 1;
    } else {
      const end = line.indexOf(delimiter, i);
      if (end < 0) {
        fields.push(line.slice(i).trim());
        return fields;
      }
      fields.push(line.slice(i, end).trim());
      i = end + 1;
    }
  }
}
