import type { NextFunction, Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { RequestCounter, rateLimitMiddleware } from '../../daemon/security/rate-limit-middleware.ts';

describe('RequestCounter', () => {
  it('lets `limit` requests a window through, counts refused ones too, and starts over when the window ends', () => {
    const counter = new RequestCounter(3, 60_000, 0);
    expect([1, 2, 3].map(() => counter.hit('a', 1000))).toEqual([undefined, undefined, undefined]);
    expect(counter.hit('a', 1000)).toBe(60);
    expect(counter.hit('a', 30_500)).toBe(31);
    // Another client has its own window.
    expect(counter.hit('b', 30_500)).toBeUndefined();
    // a's window began with its first request, at 1000.
    expect(counter.hit('a', 60_999)).toBe(1);
    expect(counter.hit('a', 61_000)).toBeUndefined();
  });

  it('forgets clients whose window ended', () => {
    const counter = new RequestCounter(1, 60_000, 0);
    counter.hit('a', 0);
    counter.hit('b', 50_000);
    expect(counter.size).toBe(2);
    counter.hit('c', 70_000);
    expect(counter.size).toBe(2);
    expect(counter.hit('b', 70_000)).toBe(40);
  });
});

interface Answer {
  status?: number;
  headers: Record<string, string>;
  body?: unknown;
  passed: boolean;
}

/** Runs the middleware on a request from `address`, as express would. */
function send(middleware: ReturnType<typeof rateLimitMiddleware>, address: string): Answer {
  const answer: Answer = { headers: {}, passed: false };
  const res = {
    statusCode: 200,
    setHeader(name: string, value: string | number) {
      answer.headers[name.toLowerCase()] = String(value);
      return res;
    },
    end(text: string) {
      answer.status = res.statusCode;
      answer.body = JSON.parse(text);
      return res;
    },
  };
  const next: NextFunction = () => {
    answer.passed = true;
  };
  middleware({ socket: { remoteAddress: address } } as Request, res as unknown as Response, next);
  return answer;
}

describe('rate limit middleware', () => {
  it('refuses past the limit with 429, Retry-After and the error body', () => {
    const middleware = rateLimitMiddleware(2);
    expect(send(middleware, '127.0.0.1').passed).toBe(true);
    expect(send(middleware, '127.0.0.1').passed).toBe(true);
    const refused = send(middleware, '127.0.0.1');
    expect(refused).toEqual({
      status: 429,
      headers: {
        'retry-after': '60',
        'content-type': 'application/json; charset=utf-8',
        'content-length': expect.any(String),
      },
      body: { error: 'Too many requests: more than 2 a minute', code: 'rate_limited' },
      passed: false,
    });
    expect(send(middleware, '127.0.0.2').passed).toBe(true);
  });

  it('counts an IPv6 client by its /56 and an IPv4-mapped address as its IPv4 address', () => {
    const middleware = rateLimitMiddleware(1);
    expect(send(middleware, '2001:db8:0:100::1').passed).toBe(true);
    expect(send(middleware, '2001:db8:0:1ff::2').passed).toBe(false);
    expect(send(middleware, '2001:db8:0:200::1').passed).toBe(true);
    expect(send(middleware, '10.0.0.1').passed).toBe(true);
    expect(send(middleware, '::ffff:10.0.0.1').passed).toBe(false);
  });
});
