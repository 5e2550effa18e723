const MAX_CALL_IDS = 1000;

function isObject(value: unknown): value is object {
  return (typeof value === 'object' && value !== null) || typeof value === 'function';
}

/**
 * The notices of the calls of one tool with its own `toModelOutput`, kept for every time the SDK
 * asks for a call's output (`streamText` asks twice). A call is known by the input object the SDK
 * gave `execute`, which the SDK hands `toModelOutput` again, so calls stay apart even when a model
 * reuses call ids (mock models, some local servers) or concurrent runs share the tools. An output
 * asked for with another input object (a history converted again from UI messages) gets the
 * notice of its call id (the newest 1000), but only while a single call has used that id.
 */
export class CallNotices {
  /** By the input object of each call: its notice, or '' for none. */
  readonly #byInput = new WeakMap<object, string>();
  /** By call id: the notice of the one call with that id ('' for none), null once two calls had it. */
  readonly #byId = new Map<string, string | null>();

  /** A call starts: what an earlier call with the same input object or call id left is not its. */
  start(callId: string, input: unknown): void {
    if (isObject(input)) this.#byInput.set(input, '');
    const reused = this.#byId.has(callId);
    this.#byId.delete(callId);
    if (this.#byId.size >= MAX_CALL_IDS) {
      const oldest = this.#byId.keys().next().value;
      if (oldest !== undefined) this.#byId.delete(oldest);
    }
    this.#byId.set(callId, reused ? null : '');
  }

  /** Records the notice loopguard added to the call with this id and input. */
  add(callId: string, input: unknown, notice: string): void {
    if (isObject(input)) this.#byInput.set(input, notice);
    if (this.#byId.get(callId) === '') this.#byId.set(callId, notice);
  }

  /** The notice for the output of the call with this id and input, if it has one. */
  get(callId: string, input: unknown): string | undefined {
    const own = isObject(input) ? this.#byInput.get(input) : undefined;
    const notice = own ?? this.#byId.get(callId);
    return notice ? notice : undefined;
  }
}
