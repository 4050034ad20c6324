import { describe, expect, it } from 'vitest';
import { scanChunk, templateClassifier, type Template } from './chunk-scan.js';
import { classifyData, isKeepAlive, parseChunk, streamClassifier } from './openai-common.js';
import { SseParser } from './sse.js';

/** Chunks as real servers send them (vLLM, SGLang, llama.cpp, OpenAI, the sim, the flood harness), and odd ones. */
const PLAIN = [
  '{"id":"chatcmpl-flood","object":"chat.completion.chunk","created":1700000000,"model":"flood-100-20","choices":[{"index":0,"delta":{"content":"alpha"},"logprobs":null,"finish_reason":null}]}',
  '{"id":"chatcmpl-flood","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}',
  '{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}',
  '{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"reasoning_content":"think"},"finish_reason":null}]}',
  '{"id":"c","choices":[{"index":0,"delta":{"reasoning":"hmm","content":null}}]}',
  '{"id":"c","choices":[{"index":0,"delta":{"reasoning_content":"","reasoning":"fallback"}}]}',
  '{"id":"c","choices":[{"index":0,"text":" the","logprobs":null,"finish_reason":null}],"usage":null}',
  '{"choices":[{"delta":{"content":"a\\nb \\"q\\" \\u00e9 \\ud83d\\ude00 \\/"}}],"error":null}',
  '{"choices":[{"delta":{"content":"日本語 ünïcödé 😀"}}]}',
  '{"choices":[{"delta":null,"message":{"content":"from message"}}]}',
  '{"choices":[{"message":{"role":"assistant","content":"whole body"},"finish_reason":"length"}],"usage":null}',
  '{"choices":[{"delta":{"content":"a"}},{"delta":{"content":"b"},"text":"c","finish_reason":"stop"}]}',
  '{"choices":[]}',
  '{"choices":null}',
  '{ "choices" : [ { "delta" : { "content" : "spaced" } , "index" : 0 } ] }',
  '{"id":"x","object":"chat.completion.chunk","n":-1.5e+3,"m":[1,2.25,{"a":[true,false,null]}],"choices":[{"delta":{"content":"nums"}}]}',
  '{"choices":[{"delta":{"content":"x"}}],"system_fingerprint":"fp_1","service_tier":"default","x_extra":{"k":[1,{"z":""}]}}',
  '{"object":"not-error","choices":[{"delta":{"content":"o"}}]}',
  '{"object":5,"choices":[{"delta":{"content":"o5"}}]}',
  '{}',
  '{ }',
  '{"__proto__":{"content":"p"},"choices":[{"__proto__":{"delta":{"content":"no"}},"delta":{"content":"yes"}}]}',
];

/** Payloads the scanner must leave to the full parse (null), with the full parse's answer to compare. */
const UNUSUAL = [
  '{"choices":[],"usage":{"prompt_tokens":37,"completion_tokens":100,"total_tokens":137}}',
  '{"choices":[{"delta":{"content":"x"}}],"usage":{"prompt_tokens":1,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":1}}}',
  '{"error":{"message":"overloaded","code":503}}',
  '{"object":"error","message":"bad"}',
  '{"choices":[{"delta":{"content":"a"}}],"choices":[{"delta":{"content":"b"}}]}',
  '{"choices":[{"delta":{"content":"a","content":"b"}}]}',
  '{"choices":[{"delta":{"content":"a"},"delta":{"content":"b"}}]}',
  '{"\\u0063hoices":[{"delta":{"content":"escaped key"}}]}',
  '{"choices":[{"delta":{"content":"tab\there"}}]}',
  '{"choices":[null,{"delta":{"content":"after null"}}]}',
  '{"choices":"nope"}',
  '{"choices":[{"delta":"str","message":{"content":"m"}}]}',
  '{"choices":[{"delta":{"content":"x"}}]} trailing',
  '{"choices":[{"delta":{"content":"x"}}],}',
  '{"choices":[{"delta":{"content":"x"}}]',
  '{"n":01,"choices":[]}',
  '{"n":1.,"choices":[]}',
  '{"n":-,"choices":[]}',
  '{"n":1e,"choices":[]}',
  '{"n":nul,"choices":[]}',
  '{"s":"bad \\x escape","choices":[]}',
  '{"s":"\\u12G4","choices":[]}',
  '{"choices":[{"delta":{"content":"unterminated}}]}',
  '{"a":' + '['.repeat(40) + ']'.repeat(40) + ',"choices":[]}',  // a tool call's name and arguments are answer text (classifyData): left to the full parse
  '{"choices":[{"delta":{"content":5,"tool_calls":[{"index":0,"id":"t","function":{"name":"f","arguments":"{\\"x\\":1}"}}]}}]}',
];

describe('scanChunk: records what the full parse records', () => {
  it('reads every plain chunk exactly as JSON.parse + classify does', () => {
    for (const d of PLAIN) {
      const fast = scanChunk(d);
      expect(fast, d).not.toBeNull();
      expect(fast, d).toEqual(parseChunk(d));
    }
  });

  it('gives up on usage, errors, repeated or escaped keys, control characters, odd types and malformed JSON', () => {
    for (const d of UNUSUAL) {
      expect(scanChunk(d), d).toBeNull();
      expect(classifyData(d), d).toEqual(parseChunk(d)); // and classifyData then answers like the full parse
    }
    expect(classifyData(UNUSUAL[0]).kind).toBe('u');
    expect(classifyData(UNUSUAL[2]).kind).toBe('e');
    expect(classifyData(UNUSUAL[12]).error).toMatch(/^malformed JSON/);
  });

  it('never disagrees with the full parse on mutated chunks (deterministic fuzz)', () => {
    let seed = 12345;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const alphabet = '{}[]",:\\ 0123456789.-+eEtrufalsn"u\u00e9\t';
    let scanned = 0;
    for (let k = 0; k < 20000; k++) {
      let d = PLAIN[rand(PLAIN.length)];
      for (let m = 1 + rand(3); m > 0; m--) {
        const at = rand(d.length + 1);
        const op = rand(3);
        const ch = alphabet[rand(alphabet.length)];
        d = op === 0 ? d.slice(0, at) + ch + d.slice(at) : op === 1 ? d.slice(0, at) + d.slice(at + 1) : d.slice(0, at) + ch + d.slice(at + 1);
      }
      const fast = scanChunk(d);
      if (fast === null) continue;
      scanned++;
      let full: unknown;
      try {
        JSON.parse(d);
        full = parseChunk(d);
      } catch {
        full = 'JSON.parse rejects it';
      }
      expect(fast, d).toEqual(full);
    }
    expect(scanned).toBeGreaterThan(1000); // the fuzz reached the fast path, not only the fallback
  });

  it('accepts a value only where JSON.parse does (random values in a skipped field)', () => {
    let seed = 777;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const pieces = ['0', '1', '9', '-', '+', '.', 'e', 'E', ':', ',', '[', ']', '{', '}', '"', '\\', 'null', 'true', 'fals', ' ', 'u', '"k"', '"k":'];
    let scanned = 0;
    for (let k = 0; k < 30000; k++) {
      let v = '';
      for (let m = 1 + rand(6); m > 0; m--) v += pieces[rand(pieces.length)];
      const d = `{"id":"c","n":${v},"choices":[{"delta":{"content":"x"}}]}`;
      const fast = scanChunk(d);
      let ok = true;
      try {
        JSON.parse(d);
      } catch {
        ok = false;
      }
      if (fast === null) continue;
      scanned++;
      expect(ok, d).toBe(true);
      expect(fast, d).toEqual(parseChunk(d));
    }
    expect(scanned).toBeGreaterThan(1000);
  });

  it('learns a template only where the answer is one plain string', () => {
    const t: Template = { head: null, tail: '' };
    scanChunk(PLAIN[0], t);
    expect(t.head?.endsWith('"delta":{"content":"')).toBe(true);
    expect(t.tail).toBe('"},"logprobs":null,"finish_reason":null}]}');
    scanChunk(PLAIN[6], t); // completions: the text string
    expect(t.head?.endsWith('"text":"')).toBe(true);
    for (const d of [PLAIN[2], PLAIN[3], PLAIN[7], PLAIN[11], PLAIN[12]]) {
      scanChunk(d, t);
      expect(t.head, d).toBeNull(); // a finish reason, reasoning, a backslash, two choices, no choice
    }
  });

  it('a stream classifier answers every event of a stream like classifyData, template hits included', () => {
    const head = '{"id":"chatcmpl-9","object":"chat.completion.chunk","created":7,"model":"m","choices":[{"index":0,"delta":{"content":"';
    const tail = '"},"logprobs":null,"finish_reason":null}]}';
    const stream = [
      PLAIN[1],
      ...['Hello', ',', ' world', '', ' 😀 ünï', 'with "quote"'.replace(/"/g, '\\"'), 'x'].map((c) => head + c + tail),
      head + 'tab\\there' + tail,
      head + 'raw\ttab' + tail,
      head.replace('"m"', '"n"') + 'other model' + tail,
      head + 'a' + tail + ' ',
      head + 'a"' + tail,
      head + 'a' + tail.replace('null}]}', '"stop"}]}'),
      head + 'b' + tail.replace('null}]}', '"stop"}]}'),
      head.replace('"content"', '"reasoning_content"') + 'r1' + tail,
      head.replace('"content"', '"reasoning_content"') + 'r2' + tail,
      head.replace('"content"', '"reasoning_content":"both","content"') + 'c1' + tail,
      head.replace('"content"', '"reasoning_content":"both","content"') + 'c2' + tail,
      head + 'c1' + tail.replace(']}', ',{"index":1,"delta":{"content":"second"}}]}'),
      head + 'c2' + tail.replace(']}', ',{"index":1,"delta":{"content":"second"}}]}'),
      '{"id":"chatcmpl-9","choices":[{"index":0,"text":"t1","finish_reason":null}]}',
      '{"id":"chatcmpl-9","choices":[{"index":0,"text":"t2","finish_reason":null}]}',
      '{"id":"chatcmpl-9","choices":[{"index":0,"text":"","finish_reason":null}]}',
      '{"id":"chatcmpl-9","choices":[{"index":0,"text":"t3","finish_reason":null}],"usage":{"prompt_tokens":3,"completion_tokens":4}}',
      '{"id":"chatcmpl-9","choices":[{"index":0,"text":"t4","finish_reason":null}]',
      '{"id":"chatcmpl-9","choices":[{"index":0,"text":"t4","finish_reason":null}]}',
      ...UNUSUAL,
      ...PLAIN,
      '[DONE]',
      '{}',
      '',
    ];
    let calls = 0;
    const counted = templateClassifier((d) => {
      calls++;
      return classifyData(d);
    });
    const fresh = streamClassifier();
    for (const d of stream) {
      expect(counted(d), d).toEqual(classifyData(d));
      expect(fresh(d), d).toEqual(classifyData(d));
    }
    expect(calls).toBeLessThan(stream.length - PLAIN.length); // the template and the scanner answered many
  });

  it('gives the same events through the SSE parser split at every byte', () => {
    const head = '{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"';
    const series = ['ab', 'ü😀', '', 'q\\"', 'end'].map((c) => `${head}${c}"},"finish_reason":null}]}`);
    const events = [...series, ...PLAIN, ...series, ...UNUSUAL.slice(0, 4), '[DONE]'];
    const body = Buffer.from(events.map((d) => `data: ${d}\r\n\r\n`).join(''), 'utf8');
    const run = (classify: (d: string) => unknown, split: number): unknown[] => {
      const out: unknown[] = [];
      const p = new SseParser((ev) => {
        if (ev.type === 'data') out.push(classify(ev.data));
      });
      if (split > 0) {
        p.push(body.subarray(0, split));
        p.push(body.subarray(split));
      } else p.push(body);
      p.end();
      return out;
    };
    // The reference: classifyData's own markers for [DONE] and keep-alives, the full parse for everything else.
    const full = run((d) => (d === '[DONE]' ? 'done' : isKeepAlive(d) ? 'keep-alive' : parseChunk(d)), 0);
    expect(full).toHaveLength(events.length);
    for (let split = 0; split <= body.length; split++) {
      const classify = streamClassifier();
      const got = run((d) => (d === '[DONE]' ? 'done' : classify(d)), split).map((i) => ((i as { kind?: string }).kind === 'h' ? 'keep-alive' : i));
      expect(got).toEqual(full);
    }
  });
});
