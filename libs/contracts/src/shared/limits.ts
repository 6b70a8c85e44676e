/**
 * Size and depth caps applied at the boundary. They exist so a hostile or broken caller cannot
 * make a service spend unbounded memory, stack or CPU on one request; the values are generous
 * for any real envelope.
 */
export const LIMITS = Object.freeze({
  /** Longest accepted `TaskEnvelope.objective`, in UTF-16 code units. */
  objectiveMaxLength: 10_000,
  /** Largest accepted envelope, as UTF-8 bytes of its JSON text. */
  envelopeMaxBytes: 1024 * 1024,
  /** Deepest accepted nesting of any JSON value crossing a boundary. */
  jsonMaxDepth: 128,
  /** Deepest accepted nesting of `outputContract.schema`. */
  schemaMaxDepth: 64,
  /** Deepest accepted nesting of actions (`hitl.approveAction` counts one level). */
  actionMaxDepth: 4,
  /** Deepest accepted JSONLogic rule. */
  jsonLogicMaxDepth: 32,
  /** Most accepted nodes (operators, arguments, literals) in one JSONLogic rule. */
  jsonLogicMaxNodes: 2_000,
  /**
   * Deepest accepted nesting of iterations (`map`, `filter`, `reduce`, `all`, `some`, `none`
   * inside another one's body): the degree of the polynomial an evaluation's cost can grow by
   * over the data's array sizes.
   */
  jsonLogicMaxIterationDepth: 3,
  /**
   * The evaluation budget of one JSONLogic rule, in operations: every operator and operand
   * evaluated, every comparison an `in` makes, every character a text operator reads. A rule
   * that needs more fails closed (`evaluation_budget_exceeded`); one that needs more even when
   * every data array has one item is refused before the run. `FLEX_LOGIC_MAX_OPERATIONS`
   * changes the run-time budget.
   */
  jsonLogicMaxOperations: 100_000,
  /**
   * The evaluation budget of one JSONLogic rule, in allocated items: array elements created
   * (array literals, `map`, `filter`, `merge`, `missing`), characters of texts created or
   * converted (`cat`, `substr`, arrays compared as text). `FLEX_LOGIC_MAX_ITEMS` changes the
   * run-time budget.
   */
  jsonLogicMaxItems: 300_000,
  /** Longest accepted short text field (labels, names, reasons). */
  shortTextMaxLength: 500,
  /** Longest accepted long text field (instructions, rationales, summaries). */
  longTextMaxLength: 20_000,
});
