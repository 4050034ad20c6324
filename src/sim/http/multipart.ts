// A small multipart/form-data reader (RFC 7578) for the sim's /v1/audio/transcriptions: fields and one file each.

export interface FormPart {
  name: string;
  filename?: string;
  contentType?: string;
  data: Buffer;
}

/** The boundary of a multipart/form-data content-type header; undefined when it is not one. */
export function multipartBoundary(contentType: string | undefined): string | undefined {
  if (!contentType || !/^multipart\/form-data\b/i.test(contentType)) return undefined;
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return m ? (m[1] ?? m[2]) : undefined;
}

/** The parts of a multipart body; throws with a message naming what is malformed. */
export function parseMultipart(body: Buffer, boundary: string): FormPart[] {
  const delim = Buffer.from(`--${boundary}`);
  const parts: FormPart[] = [];
  let at = body.indexOf(delim);
  if (at < 0) throw new Error('multipart body: no boundary line');
  for (;;) {
    at += delim.length;
    if (body.subarray(at, at + 2).toString() === '--') return parts;
    if (body.subarray(at, at + 2).toString() === '\r\n') at += 2;
    const headEnd = body.indexOf('\r\n\r\n', at);
    if (headEnd < 0) throw new Error('multipart body: a part without headers');
    const headers = body.subarray(at, headEnd).toString('utf8').split('\r\n');
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delim]), headEnd + 4);
    if (next < 0) throw new Error('multipart body: a part without a closing boundary');
    const part: FormPart = { name: '', data: body.subarray(headEnd + 4, next) };
    for (const h of headers) {
      const [k, ...rest] = h.split(':');
      const v = rest.join(':').trim();
      if (k.toLowerCase() === 'content-disposition') {
        part.name = /\bname="([^"]*)"/i.exec(v)?.[1] ?? '';
        const f = /\bfilename="([^"]*)"/i.exec(v);
        if (f) part.filename = f[1];
      } else if (k.toLowerCase() === 'content-type') part.contentType = v;
    }
    parts.push(part);
    at = next + 2;
  }
}
