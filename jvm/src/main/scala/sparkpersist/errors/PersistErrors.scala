package sparkpersist.errors

/**
 * The errors many call sites raise, one per kind of refusal: each takes what the user asked for
 * (`context`, naming the table, option or statement) and why it is refused with what to do
 * (`reason`). A refusal of a kind of its own gets a condition and, when callers catch it, an
 * exception class of its own ([[PersistThrowable]]).
 */
object PersistErrors {

  /** A write's input refused: its options, columns, types or values. */
  def invalidWrite(shard: String, reason: String): PersistInputException =
    PersistError("PERSIST_INVALID_WRITE", "shard" -> shard, "reason" -> reason).invalidInput()

  /** A table property, write or procedure option, or catalog setting refused. */
  def invalidOption(context: String, reason: String): PersistInputException =
    PersistError("PERSIST_INVALID_OPTION", "context" -> context, "reason" -> reason).invalidInput()

  /** A schema, or a change of one, refused. */
  def invalidSchema(context: String, reason: String): PersistInputException =
    PersistError("PERSIST_INVALID_SCHEMA", "context" -> context, "reason" -> reason).invalidInput()

  /** An operation persist tables do not offer, thrown as the `UnsupportedOperationException` Spark's callers expect. */
  def unsupported(context: String, reason: String): PersistUnsupportedException =
    PersistError("PERSIST_UNSUPPORTED_OPERATION", "context" -> context, "reason" -> reason).unsupported

  /** An operation persist tables do not offer, where the caller's contract is an `IllegalArgumentException`. */
  def unsupportedInput(context: String, reason: String): PersistInputException =
    PersistError("PERSIST_UNSUPPORTED_OPERATION", "context" -> context, "reason" -> reason).invalidInput()
}
