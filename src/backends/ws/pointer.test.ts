import { describe, expect, it } from 'vitest';
import { compilePointer, getPointer, pointerProblem } from './pointer.js';

describe('JSON pointers (RFC 6901)', () => {
  const doc = { foo: ['bar', 'baz'], '': 0, 'a/b': 1, 'm~n': 8, ' ': 7, nested: { x: { y: 'z' } } };
  it('reads the examples of RFC 6901 section 5', () => {
    expect(getPointer(doc, compilePointer(''))).toBe(doc);
    expect(getPointer(doc, compilePointer('/foo'))).toEqual(['bar', 'baz']);
    expect(getPointer(doc, compilePointer('/foo/0'))).toBe('bar');
    expect(getPointer(doc, compilePointer('/'))).toBe(0);
    expect(getPointer(doc, compilePointer('/a~1b'))).toBe(1);
    expect(getPointer(doc, compilePointer('/m~0n'))).toBe(8);
    expect(getPointer(doc, compilePointer('/ '))).toBe(7);
    expect(getPointer(doc, compilePointer('/nested/x/y'))).toBe('z');
  });
  it('is undefined for missing steps, non-index array tokens and inherited keys', () => {
    expect(getPointer(doc, compilePointer('/foo/2'))).toBeUndefined();
    expect(getPointer(doc, compilePointer('/foo/01'))).toBeUndefined();
    expect(getPointer(doc, compilePointer('/foo/-'))).toBeUndefined();
    expect(getPointer(doc, compilePointer('/nested/x/y/z'))).toBeUndefined();
    expect(getPointer(doc, compilePointer('/constructor'))).toBeUndefined();
    expect(getPointer(null, compilePointer('/a'))).toBeUndefined();
  });
  it('names what is wrong with a bad pointer', () => {
    expect(pointerProblem('choices/0')).toMatch(/not a JSON pointer/);
    expect(pointerProblem('/a~2')).toMatch(/~0.*~1/);
    expect(pointerProblem('/a~')).toMatch(/~/);
    expect(pointerProblem('/choices/0/delta/content')).toBeNull();
  });
});
