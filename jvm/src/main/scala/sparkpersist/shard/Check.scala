package sparkpersist.shard

/** `require` without its "requirement failed: " prefix, for messages written for users. */
private[shard] object Check {
  def arg(condition: Boolean, message: => String): Unit =
    if (!condition) throw new IllegalArgumentException(message)
}
