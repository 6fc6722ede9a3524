import { Type, type Static, type TLiteral, type TSchemaOptions, type TUnion } from 'typebox';

// One member carrying the whole union: TypeBox resolves its static type to T[number] whether `values` is a
// tuple or a plain array typed by its union (CHALLENGE_TYPES is the latter).
type Literals<T extends readonly string[]> = [TLiteral<T[number]>];

/**
 * Type.Union of one Type.Literal per value, typed per value: `values.map(Type.Literal)` gives
 * TLiteral<'a' | 'b'>[], whose static type TypeBox resolves to `never`. The emitted JSON Schema is
 * the same anyOf of consts.
 */
export function literalUnion<const T extends readonly string[]>(values: T, options?: TSchemaOptions): TUnion<Literals<T>> {
  return Type.Union(
    values.map((v) => Type.Literal(v)),
    options,
  ) as unknown as TUnion<Literals<T>>;
}

// Compile-time guard (no runtime code): the static type is exactly the union of the values, not never.
type Probe = Static<ReturnType<typeof literalUnion<readonly ['a', 'b']>>> | Static<ReturnType<typeof literalUnion<('a' | 'b')[]>>>;
type Exactly<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const LITERAL_UNION_KEEPS_LITERALS: Exactly<Probe, 'a' | 'b'> = true;
