package sparkpersist.write

import org.apache.spark.sql.{Column, DataFrame}
import org.apache.spark.sql.catalyst.analysis.TableOutputResolver
import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, AttributeReference, Expression, RowOrdering}
import org.apache.spark.sql.catalyst.plans.logical.{LocalRelation, Project}
import org.apache.spark.sql.catalyst.util.CharVarcharUtils
import org.apache.spark.sql.functions.{coalesce, lit, raise_error, unix_millis}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.sparkpersist.CatalystColumns
import org.apache.spark.sql.types.{ArrayType, DataType, LongType, MapType, StructField, StructType, TimestampType}

import sparkpersist.errors.PersistErrors
import sparkpersist.schema.{ColumnDef, ColumnNames, ReservedColumns, ShardSchema}
import sparkpersist.shard.PartFormat

/**
 * Checks a DataFrame against a shard's schema and shapes it as the part layout
 * ([[PartFormat.partSchema]]): the data columns in the shard's order, then `time`, then `diff`,
 * sorted within each input partition as parts must be. A pure append (no time, no diff column)
 * yields only the data columns: the write tasks stamp time and diff ([[RunSpec.stampTime]]), and a
 * DataFrame whose columns already are the shard's, in order, is written without any projection.
 *
 * Columns match the shard's by name, ignoring case: names are distinct ignoring case in shards and
 * must be so in the DataFrame too ([[ColumnNames]]), at every level, so the match is one to one
 * whatever `spark.sql.caseSensitive` says. Once matched, a column is taken by its resolved
 * attribute, never looked up by name again. Types must be equal, nullability aside and with the
 * fields of structs (at any depth, inside arrays and maps too) matched by name ignoring case as
 * columns are: Spark's own by-name resolution of table writes ([[TableOutputResolver]]) puts them
 * in the shard's order and checks every level the shard declares NOT NULL
 * (`NOT_NULL_ASSERT_VIOLATION`, [[sparkpersist.schema.NestedNullability]]). A CHAR(n) or
 * VARCHAR(n) column takes a STRING and gets Spark's own write-side length check (CHAR values are
 * padded), as `INSERT` into Spark's tables does. The time column may also be a data column (an
 * event timestamp that is also the update's time). Any mismatch fails before a single row is
 * written, naming the column, the expected and the actual type. A null in a NOT NULL column, in
 * the time column or in the diff column fails the write when the row is reached.
 *
 * Sort order within a part ([[sortKeys]]): the shard's order key, then time; update writes then
 * sort by the remaining (orderable) data columns, so equal rows of one key and time are adjacent
 * when consolidation merges runs. An append-only write stamped with the commit time and without
 * an order key has nothing to sort by and is written in input order.
 */
object WriteInput {

  def prepare(df: DataFrame, shardName: String, schema: ShardSchema, options: WriteOptions,
      commitTime: Long): DataFrame = {
    val fields = df.schema.fields.toSeq
    val timeField = options.timeCol.map(special(shardName, fields, _, ReservedColumns.Time, Seq(LongType, TimestampType)))
    val diffField = options.diffCol.map(special(shardName, fields, _, ReservedColumns.Diff, Seq(LongType)))
    val matched = check(shardName, schema, fields, (timeField ++ diffField).map(_.name).toSet, nestedByName = true)
    val attributes = df.queryExecution.analyzed.output
    def attribute(f: StructField): Attribute = attributes(fields.indexOf(f))
    def column(f: StructField): Column = CatalystColumns.column(attribute(f))
    val inside = resolvedInside(shardName, schema.columns.zip(matched).map { case (c, f) => c -> attribute(f) })

    val data = schema.columns.zip(matched).map { case (c, f) =>
      val lengthChecked = c.declaredType != c.dataType && !SQLConf.get.charVarcharAsString
      val notNullChecked = !c.nullable && f.nullable
      val resolved = inside.get(c.id)
      if (resolved.isEmpty && !lengthChecked && !notNullChecked && f.name == c.name) column(f)
      else {
        val stored = resolved.getOrElse(attribute(f))
        val value = CatalystColumns.column(
          if (lengthChecked) CharVarcharUtils.stringLengthCheck(stored, c.declaredType) else stored)
        (if (notNullChecked) notNull(value, s"column '${c.name}' of the shard is NOT NULL") else value).as(c.name)
      }
    }
    val reserved = if (stampTime(options, commitTime).isDefined) Nil else {
      val time = timeField.fold(lit(commitTime)) { f =>
        val v = if (f.dataType == TimestampType) unix_millis(column(f)) else column(f)
        notNull(v, s"the time column '${f.name}' holds a null time")
      }
      val diff = diffField.fold(lit(1L))(f => notNull(column(f), s"the diff column '${f.name}' holds a null diff"))
      Seq(time.as(ReservedColumns.Time), diff.as(ReservedColumns.Diff))
    }
    val shaped = df.select(data ++ reserved: _*)

    val keys = sortKeys(schema, options.timeCol.isDefined, options.isUpdate)
    if (keys.isEmpty) shaped
    else {
      val byName = shaped.queryExecution.analyzed.output.map(a => a.name -> CatalystColumns.column(a)).toMap
      shaped.sortWithinPartitions(keys.map(byName): _*)
    }
  }

  /**
   * The columns whose values need more than a reference to be stored: a struct whose fields come in
   * another order (at any depth), or a level inside the column that the shard declares NOT NULL
   * and the DataFrame's type may hold a null in. Each maps (by column id) to Spark's by-name
   * resolution of a table write into it ([[TableOutputResolver]], names matched ignoring case,
   * store assignment ANSI: its casts are no-ops, as the types were checked equal), which reorders the
   * fields and asserts every such level non-null (`NOT_NULL_ASSERT_VIOLATION`, naming the place).
   * Top-level nullability is checked by [[prepare]] itself.
   */
  private def resolvedInside(shardName: String, columns: Seq[(ColumnDef, Attribute)]): Map[Int, Expression] = {
    val needed = columns.filterNot { case (c, a) => storableAsIs(a.dataType, c.dataType) }
    if (needed.isEmpty) Map.empty
    else {
      val conf = SQLConf.get.clone()
      conf.setConf(SQLConf.CASE_SENSITIVE, false)
      conf.setConfString(SQLConf.STORE_ASSIGNMENT_POLICY.key, SQLConf.StoreAssignmentPolicy.ANSI.toString)
      // The input under the shard's names (same expression ids), so that names match at the top.
      val input = LocalRelation(needed.map { case (c, a) => a.withName(c.name) })
      val original = needed.map { case (_, a) => a.exprId -> a }.toMap
      val expected = needed.map { case (c, a) => AttributeReference(c.name, c.dataType, a.nullable, c.metadata)() }
      val resolved = TableOutputResolver.resolveOutputColumns(shardName, expected, input, byName = true, conf) match {
        case Project(list, _) => list
        case other => other.output
      }
      needed.map(_._1.id).zip(resolved.map { e =>
        val value = e match {
          case Alias(child, _) => child
          case other => other
        }
        value.transform { case a: Attribute if original.contains(a.exprId) => original(a.exprId) }
      }).toMap
    }
  }

  /**
   * Checks that `fields` are exactly the shard's columns (ignoring case and order) with the
   * shard's types, apart from the time/diff columns named in `special`; returns the field of each
   * shard column, in the shard's order. Names equal ignoring case, in the DataFrame or (for
   * shards created before the rule) in the shard, fail the write. Nullability does not count; with
   * `nestedByName` (a writer that resolves them, [[prepare]]), neither does the order of the fields
   * of structs, matched by name ignoring case.
   */
  def check(shardName: String, schema: ShardSchema, fields: Seq[StructField], special: Set[String],
      nestedByName: Boolean = false): Seq[StructField] = {
    ColumnNames.requireDistinct(StructType(fields), s"Cannot write to shard '$shardName'")
    val shardClashes = ColumnNames.clashes(schema.dataSchema)
    if (shardClashes.nonEmpty) {
      fail(shardName, s"it was created before sparkpersist refused names equal ignoring case " +
        s"(${shardClashes.map(_.describe).mkString("; ")}), so its columns cannot be told apart. Create a new " +
        "shard with distinct names and copy the data with INSERT INTO ... SELECT, renaming one of each pair.")
    }
    def find(name: String) = fields.find(_.name.equalsIgnoreCase(name))
    val extra = fields.filterNot(f => special(f.name) || schema.column(f.name).isDefined)
    extra.foreach(f => ReservedColumns.requireNotReserved(f.name))
    if (extra.nonEmpty) {
      fail(shardName, s"column(s) ${extra.map(f => s"'${f.name}'").mkString(", ")} are not columns of the " +
        s"shard (shard columns: ${schema.columns.map(_.name).mkString(", ")}). Drop them before writing.")
    }
    val missing = schema.columns.filter(c => find(c.name).isEmpty)
    if (missing.nonEmpty) {
      fail(shardName, s"the DataFrame lacks the shard column(s) " +
        s"${missing.map(c => s"'${c.name}' ${sql(c.declaredType)}").mkString(", ")}. " +
        "Add them (a null literal cast to the type, if the column is nullable).")
    }
    schema.columns.map { c =>
      val f = find(c.name).get
      if (!(if (nestedByName) sameFields(f.dataType, c.dataType) else DataType.equalsIgnoreNullability(f.dataType, c.dataType))) {
        fail(shardName, s"column '${c.name}' must be ${sql(c.declaredType)}, but the DataFrame's is " +
          s"${sql(f.dataType)}. Cast it to ${sql(c.dataType)}.")
      }
      f
    }
  }

  /**
   * Whether values of `input` are values of `stored` as they are: fields of structs in the same
   * order, and no level inside nullable where `stored` says NOT NULL.
   */
  private def storableAsIs(input: DataType, stored: DataType): Boolean = (input, stored) match {
    case (i: StructType, s: StructType) =>
      i.length == s.length && i.fields.zip(s.fields).forall { case (f, g) =>
        f.name.equalsIgnoreCase(g.name) && (g.nullable || !f.nullable) && storableAsIs(f.dataType, g.dataType)
      }
    case (ArrayType(i, in), ArrayType(s, sn)) => (sn || !in) && storableAsIs(i, s)
    case (MapType(ik, iv, in), MapType(sk, sv, sn)) => (sn || !in) && storableAsIs(ik, sk) && storableAsIs(iv, sv)
    case _ => input == stored
  }

  /** Whether `input` is `stored` but for nullability and the order of struct fields (matched by name ignoring case). */
  private def sameFields(input: DataType, stored: DataType): Boolean = (input, stored) match {
    case (i: StructType, s: StructType) =>
      i.length == s.length && s.fields.forall(sf => i.fields.find(_.name.equalsIgnoreCase(sf.name))
        .exists(f => sameFields(f.dataType, sf.dataType)))
    case (ArrayType(i, _), ArrayType(s, _)) => sameFields(i, s)
    case (MapType(ik, iv, _), MapType(sk, sv, _)) => sameFields(ik, sk) && sameFields(iv, sv)
    case _ => input == stored
  }

  /**
   * Whether `fields` carry each update's own time and diff: columns named `time` and `diff`
   * (ignoring case), both bigint. One without the other, or of another type, fails.
   */
  def carriesUpdates(shardName: String, fields: Seq[StructField]): Boolean = {
    val reserved = Seq(ReservedColumns.Time, ReservedColumns.Diff).map(n => fields.find(_.name.equalsIgnoreCase(n)))
    reserved.flatten.foreach { f =>
      if (f.dataType != LongType) fail(shardName, s"the update column '${f.name}' must be bigint, but it is ${sql(f.dataType)}.")
    }
    reserved match {
      case Seq(None, None) => false
      case Seq(Some(_), Some(_)) => true
      case _ => fail(shardName, s"a write of updates needs both a '${ReservedColumns.Time}' and a " +
        s"'${ReservedColumns.Diff}' column (bigint); an append has neither.")
    }
  }

  /**
   * The ids of the shard columns named in `keepStats` (the write option `option`); fails on a
   * name that is not one.
   */
  def keepStatsIds(shardName: String, schema: ShardSchema, keepStats: Seq[String],
      option: String = "keep_stats"): Set[Int] = {
    val unknown = keepStats.filter(schema.column(_).isEmpty)
    if (unknown.nonEmpty) {
      fail(shardName, s"$option names ${unknown.map(n => s"'$n'").mkString(", ")}, not column(s) of " +
        s"the shard (shard columns: ${schema.columns.map(_.name).mkString(", ")}). Name shard columns.")
    }
    keepStats.flatMap(schema.column(_)).map(_.id).toSet
  }

  /** The time write tasks stamp on rows of a pure append (no time, no diff column), if it is one. */
  def stampTime(options: WriteOptions, commitTime: Long): Option[Long] =
    if (stamped(options)) Some(commitTime) else None

  /** Whether a write with `options` stamps its rows with its commit time: they carry no time or diff of their own. */
  def stamped(options: WriteOptions): Boolean = options.timeCol.isEmpty && options.diffCol.isEmpty

  /** Within-part sort keys, as column names of the part layout (see the object's doc). */
  def sortKeys(schema: ShardSchema, timeVaries: Boolean, update: Boolean): Seq[String] = {
    val rest = if (update) {
      schema.columns.filter(c => !schema.orderBy.exists(_.equalsIgnoreCase(c.name)) &&
        RowOrdering.isOrderable(c.dataType)).map(_.name)
    } else Nil
    val orderKey = schema.orderBy.map(n => schema.column(n).fold(n)(_.name)) // as the columns spell them
    orderKey ++ (if (timeVaries) Seq(ReservedColumns.Time) else Nil) ++ rest
  }

  /** Backticks `name` so that Spark parses it as one column name. */
  def quote(name: String): String = "`" + name.replace("`", "``") + "`"

  private def special(shardName: String, fields: Seq[StructField], name: String, role: String,
      allowed: Seq[DataType]): StructField = {
    val f = fields.find(_.name.equalsIgnoreCase(name)).getOrElse(fail(shardName, s"the $role column " +
      s"'$name' is not a column of the DataFrame (columns: ${fields.map(_.name).mkString(", ")})."))
    if (!allowed.contains(f.dataType)) {
      fail(shardName, s"the $role column '${f.name}' must be ${allowed.map(sql).mkString(" or ")}, " +
        s"but it is ${sql(f.dataType)}.")
    }
    f
  }

  private def sql(t: DataType): String = t.sql.toLowerCase(java.util.Locale.ROOT)

  private def fail(shardName: String, msg: String): Nothing = throw PersistErrors.invalidWrite(shardName, msg)

  private def notNull(value: Column, what: String): Column =
    coalesce(value, raise_error(lit(s"Cannot write: $what. Filter or fill the nulls before writing.")))
}
