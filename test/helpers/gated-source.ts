/**
 * A gate between a model stream's first chunk and the rest: the rest is sent only once the
 * consumer has read some text, so the ordering proves a stream streams, without timing
 * anything. A stream that holds its text back would wait on the source forever, so the
 * source gives up after `patienceMs` and `order` shows it ("source gave up waiting" before
 * "consumer read").
 */
export interface Gate {
  /** What happened, in order: "consumer read", "source gave up waiting", "source sent the rest". */
  readonly order: string[];
  /** Call with each text the consumer receives; the first non-empty one opens the gate. */
  read(text: string): void;
  /** The source awaits this between its first chunk and the rest. */
  wait(): Promise<void>;
}

export function gatedSource(patienceMs = 2_000): Gate {
  const order: string[] = [];
  let open!: () => void;
  const consumerRead = new Promise<void>((resolve) => { open = resolve; });
  return {
    order,
    read: (text) => { if (text !== "" && !order.includes("consumer read")) { order.push("consumer read"); open(); } },
    wait: async () => {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([consumerRead, new Promise<void>((resolve) => { timer = setTimeout(() => { order.push("source gave up waiting"); resolve(); }, patienceMs); })]);
      clearTimeout(timer);
      order.push("source sent the rest");
    },
  };
}

/** A host-side source: `first`, then (once the gate opens) `rest`. */
export function gatedChunks(gate: Gate, first: string, rest: readonly string[]) {
  return async function* () {
    yield { delta: first };
    await gate.wait();
    for (const delta of rest) yield { delta };
  };
}
