// Symbol.dispose / Symbol.asyncDispose where a runtime lacks them (Node 20 has both; older
// browsers do not), so `await using model = await load(...)` works everywhere: TypeScript's
// down-levelled `using` reads these symbols at run time. Imported before any class uses them.
const symbols = Symbol as unknown as { dispose?: symbol; asyncDispose?: symbol };
if (typeof symbols.dispose !== 'symbol') {
  Object.defineProperty(Symbol, 'dispose', { value: Symbol.for('Symbol.dispose') });
}
if (typeof symbols.asyncDispose !== 'symbol') {
  Object.defineProperty(Symbol, 'asyncDispose', { value: Symbol.for('Symbol.asyncDispose') });
}

export {};
