import { STATUS_CODES } from 'node:http';
import type { ErrorCode } from './error-codes.js';

/**
 * Base of every error Vigil answers with on purpose. The stable upper-case `code`
 * is the contract with clients; the message is for people. One mapping point
 * (error-handler.ts) turns these and fastify's own errors into the response body
 * {statusCode, code, error, message}.
 */
export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    /** Registered in error-codes.ts (docs/api.md's table is generated from it). */
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class BadRequestError extends AppError {
  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(400, code, message, details);
  }
}

export class NotFoundError extends AppError {
  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(404, code, message, details);
  }
}

export class ConflictError extends AppError {
  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(409, code, message, details);
  }
}

export class UnprocessableError extends AppError {
  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(422, code, message, details);
  }
}

/** A capability whose model or provider is missing: says so instead of pretending. */
export class ServiceUnavailableError extends AppError {
  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(503, code, message, details);
  }
}

export class ModuleDisabledError extends ServiceUnavailableError {
  constructor(module: string) {
    super('MODULE_DISABLED', `the ${module} module is disabled in the configuration (${module}.enabled: false)`, { module });
  }
}

export interface ErrorBody {
  statusCode: number;
  code: string;
  error: string;
  message: string;
  [extra: string]: unknown;
}

export function errorBody(statusCode: number, code: string, message: string, details?: Record<string, unknown>): ErrorBody {
  return { ...(details ?? {}), statusCode, code, error: STATUS_CODES[statusCode] ?? 'Error', message };
}
