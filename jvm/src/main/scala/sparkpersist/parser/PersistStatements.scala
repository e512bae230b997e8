package sparkpersist.parser

import sparkpersist.errors.PersistError

/**
 * Recognises the persist statements in a SQL text, case-insensitively, with comments and any
 * whitespace between tokens and an optional trailing `;`:
 *
 * {{{
 *   DESCRIBE | DESC  HISTORY <table> [LIMIT <n>]
 *   RESTORE [TABLE] <table> [TO] VERSION AS OF <n>
 *   RESTORE [TABLE] <table> [TO] TIMESTAMP AS OF <expression>
 * }}}
 *
 * `<table>` is a dotted name whose parts may be back-quoted. A text that is none of these is not
 * recognised (None: Spark's parser reads it, so `DESCRIBE history` still describes a table named
 * `history`); a text starting with `RESTORE` that is not a RESTORE of this form fails, saying the form.
 */
object PersistStatements {

  val RestoreUsage: String =
    "RESTORE [TABLE] <table> [TO] VERSION AS OF <version> | TIMESTAMP AS OF <timestamp>"

  def parse(sql: String): Option[PersistStatement] = SqlTokens(sql).flatMap { all =>
    val tokens = if (all.lastOption.exists(_.is(";"))) all.init else all
    if (tokens.headOption.exists(t => t.is("DESCRIBE") || t.is("DESC")) && tokens.lift(1).exists(_.is("HISTORY"))) {
      describeHistory(tokens.drop(2))
    } else if (tokens.headOption.exists(_.is("RESTORE"))) {
      Some(restore(sql, tokens.tail).getOrElse(throw PersistError("PERSIST_INVALID_STATEMENT",
        "statement" -> sql.trim, "reason" -> s"its form is $RestoreUsage, e.g. RESTORE TABLE persist.events TO VERSION AS OF 12")
        .invalidInput()))
    } else None
  }

  private def describeHistory(rest: IndexedSeq[SqlToken]): Option[PersistStatement] = name(rest).flatMap {
    case (table, Seq()) => Some(DescribeHistory(table, None))
    case (table, Seq(limit, n)) if limit.is("LIMIT") && !n.quoted => n.text.toIntOption.filter(_ >= 0)
      .map(l => DescribeHistory(table, Some(l)))
    case _ => None
  }

  private def restore(sql: String, tokens: IndexedSeq[SqlToken]): Option[PersistStatement] = {
    val afterTable = if (tokens.headOption.exists(_.is("TABLE"))) tokens.tail else tokens
    name(afterTable).flatMap { case (table, rest) =>
      val target = if (rest.headOption.exists(_.is("TO"))) rest.tail else rest
      target match {
        case Seq(kind, as, of, expr @ _*) if as.is("AS") && of.is("OF") && expr.nonEmpty =>
          if (kind.is("VERSION")) expr match {
            case Seq(n) if !n.quoted => n.text.toLongOption.filter(_ >= 0).map(RestoreToVersion(table, _))
            case _ => None
          } else if (kind.is("TIMESTAMP")) {
            val end = if (sql.trim.endsWith(";")) sql.lastIndexOf(';') else sql.length
            Some(RestoreToTimestamp(table, sql.substring(expr.head.start, end).trim))
          } else None
        case _ => None
      }
    }
  }

  /** A dotted name at the start of `tokens` (its parts) and the tokens after it. */
  private def name(tokens: IndexedSeq[SqlToken]): Option[(Seq[String], IndexedSeq[SqlToken])] = {
    if (!tokens.headOption.exists(_.isName)) None
    else {
      var parts = Vector(tokens.head.text)
      var i = 1
      while (i + 1 < tokens.size && tokens(i).is(".") && tokens(i + 1).isName) {
        parts :+= tokens(i + 1).text
        i += 2
      }
      Some((parts, tokens.drop(i)))
    }
  }
}
