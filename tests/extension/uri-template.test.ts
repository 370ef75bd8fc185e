import { describe, expect, it } from 'vitest';
import { expandTemplate, templateVariables } from '../../extension/resources/uri-template';

// The variables of RFC 6570 section 3.2.
const RFC = {
  var: 'value',
  hello: 'Hello World!',
  path: '/foo/bar',
  empty: '',
  x: '1024',
  y: '768',
};

describe('templateVariables', () => {
  it('names the variables of every operator, each once and in order', () => {
    expect(templateVariables('file:///{path}/{+rest}{#frag}{/seg}{?a,b}{&x}{.ext}{;p}{a}')).toEqual([
      'path',
      'rest',
      'frag',
      'seg',
      'a',
      'b',
      'x',
      'ext',
      'p',
    ]);
  });

  it('drops level 4 modifiers from the names', () => {
    expect(templateVariables('{var:3}{/list*}')).toEqual(['var', 'list']);
  });

  it('finds none in a plain URI', () => {
    expect(templateVariables('test://static/resource/1')).toEqual([]);
  });
});

describe('expandTemplate', () => {
  it.each([
    ['{var}', 'value'],
    ['{hello}', 'Hello%20World%21'],
    ['{+var}', 'value'],
    ['{+hello}', 'Hello%20World!'],
    ['{+path}/here', '/foo/bar/here'],
    ['here?ref={+path}', 'here?ref=/foo/bar'],
    ['X{#var}', 'X#value'],
    ['X{#hello}', 'X#Hello%20World!'],
    ['map?{x,y}', 'map?1024,768'],
    ['{x,hello,y}', '1024,Hello%20World%21,768'],
    ['{+x,hello,y}', '1024,Hello%20World!,768'],
    ['{+path,x}/here', '/foo/bar,1024/here'],
    ['{#x,hello,y}', '#1024,Hello%20World!,768'],
    ['{#path,x}/here', '#/foo/bar,1024/here'],
    ['X{.var}', 'X.value'],
    ['X{.x,y}', 'X.1024.768'],
    ['{/var}', '/value'],
    ['{/var,x}/here', '/value/1024/here'],
    ['{;x,y}', ';x=1024;y=768'],
    ['{;x,y,empty}', ';x=1024;y=768;empty'],
    ['{?x,y}', '?x=1024&y=768'],
    ['{?x,y,empty}', '?x=1024&y=768&empty='],
    ['?fixed=yes{&x}', '?fixed=yes&x=1024'],
    ['{&x,y,empty}', '&x=1024&y=768&empty='],
    ['{var:3}', 'val'],
  ])('expands %s as RFC 6570 does', (template, expected) => {
    expect(expandTemplate(template, RFC)).toBe(expected);
  });

  it('leaves out undefined variables with their separators', () => {
    expect(expandTemplate('search{?q,lang}', { lang: 'en' })).toBe('search?lang=en');
    expect(expandTemplate('search{?q,lang}', {})).toBe('search');
    expect(expandTemplate('a{/b}{#c}', { b: undefined })).toBe('a');
  });

  it('percent-encodes reserved characters in simple expansion and keeps them with + and #', () => {
    expect(expandTemplate('x/{v}', { v: 'a/b?c#d' })).toBe('x/a%2Fb%3Fc%23d');
    expect(expandTemplate('x/{+v}', { v: 'a/b?c#d' })).toBe('x/a/b?c#d');
    expect(expandTemplate('x{#v}', { v: 'a/b' })).toBe('x#a/b');
  });

  it("encodes !'()* which encodeURIComponent would keep", () => {
    expect(expandTemplate('{v}', { v: "!'()*" })).toBe('%21%27%28%29%2A');
  });

  it('encodes non-ASCII text as UTF-8', () => {
    expect(expandTemplate('{v}', { v: 'é😀' })).toBe('%C3%A9%F0%9F%98%80');
    expect(expandTemplate('{+v}', { v: 'é' })).toBe('%C3%A9');
  });

  it('keeps existing percent-escapes only where reserved characters are allowed', () => {
    expect(expandTemplate('{+v}', { v: '50%25' })).toBe('50%25');
    expect(expandTemplate('{v}', { v: '50%25' })).toBe('50%2525');
    expect(expandTemplate('{+v}', { v: '100%' })).toBe('100%25');
  });

  it('expands the templates MCP servers declare', () => {
    expect(expandTemplate('demo://resource/dynamic/text/{resourceId}', { resourceId: '42' })).toBe(
      'demo://resource/dynamic/text/42',
    );
    expect(expandTemplate('file:///{+path}', { path: 'home/me/notes.md' })).toBe('file:///home/me/notes.md');
  });
});
