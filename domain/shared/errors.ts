// One small hierarchy of errors. The HTTP layer maps `status` and `code` to the single
// error body; `expose` says whether `message` may be shown to the client (internal
// messages never leak).

export interface FieldIssue {
  field: string;
  message: string;
}

export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly expose: boolean;
  readonly details?: FieldIssue[];
  readonly extra?: Record<string, unknown>;

  constructor(
    status: number,
    code: string,
    message: string,
    opts: { details?: FieldIssue[]; extra?: Record<string, unknown>; expose?: boolean; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    // A 503 names something the client can act on (a feature not configured here, a node not
    // ready yet: retry later), so its message is shown unless it says otherwise; other 5xx are not.
    this.expose = opts.expose ?? (status < 500 || status === 503);
    this.details = opts.details;
    this.extra = opts.extra;
  }
}

export class ValidationError extends AppError {
  constructor(message: string, details?: FieldIssue[], code = 'VALIDATION_FAILED') {
    super(400, code, message, { details });
  }
}

export class UnauthenticatedError extends AppError {
  constructor(message = 'Authentication required: log in, or send HTTP Basic credentials or an API key.') {
    super(401, 'UNAUTHENTICATED', message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message: string, extra?: Record<string, unknown>) {
    super(403, 'FORBIDDEN', message, { extra });
  }
}

export class NotFoundError extends AppError {
  constructor(resource: string, id: string | number) {
    super(404, 'NOT_FOUND', `${resource} ${id} was not found.`, { extra: { resource, id } });
  }
}

export class ConflictError extends AppError {
  constructor(message: string, extra?: Record<string, unknown>, code = 'CONFLICT') {
    super(409, code, message, { extra });
  }
}

export class PreconditionFailedError extends AppError {
  constructor(message: string, extra?: Record<string, unknown>) {
    super(412, 'PRECONDITION_FAILED', message, { extra });
  }
}

export class EditionRequiredError extends AppError {
  constructor(feature: string, edition: 'pro' | 'enterprise', running: string) {
    super(403, 'EDITION_REQUIRED', `${feature} needs the ${edition} edition; this server runs the ${running} edition.`, {
      extra: { requiredEdition: edition, runningEdition: running },
    });
  }
}

/** A dependency is down or lagging; the message is written for the client and safe to show. */
export class UnavailableError extends AppError {
  constructor(message: string, extra?: Record<string, unknown>) {
    super(503, 'UNAVAILABLE', message, { extra, expose: true });
  }
}

/** The stream was not at the version the writer expected (optimistic concurrency). */
export class WrongExpectedVersionError extends AppError {
  readonly streamId: string;
  readonly expected: number | 'any';
  readonly actual: number;
  constructor(streamId: string, expected: number | 'any', actual: number) {
    super(409, 'WRONG_EXPECTED_VERSION', `Stream ${streamId} is at version ${actual}, expected ${expected}.`, {
      extra: { streamId, expected, actual },
    });
    this.streamId = streamId;
    this.expected = expected;
    this.actual = actual;
  }
}

/** An event with this id was already appended: the write happened before (idempotent retry). */
export class DuplicateEventError extends AppError {
  readonly eventId: string;
  constructor(eventId: string) {
    super(409, 'DUPLICATE_EVENT', `Event ${eventId} was already appended.`);
    this.eventId = eventId;
  }
}
