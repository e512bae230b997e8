package sparkpersist.codec

/** `require` without its "requirement failed: " prefix, for messages written for users. */
private[sparkpersist] object Check {
  def arg(condition: Boolean, message: => String): Unit =
    if (!condition) throw new IllegalArgumentException(message)
}
