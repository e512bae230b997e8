package sparkpersist.iceberg

import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.Path
import org.apache.iceberg.{BaseTable, ContentFile, DataFile, DataFiles, DeleteFile, FileFormat, ManifestContent, ManifestFile,
  ManifestFiles, PartitionSpec, Schema, SortOrder, Table,
  TableMetadata, TableProperties}

import sparkpersist.shard.{PartMeta, ShardHandle}

/**
 * The Iceberg table of a shard: format 2, unpartitioned, at the shard's own directory, its metadata
 * under `metadata/` (the Hadoop-table layout Spark's Iceberg source loads by path and pyiceberg's
 * `StaticTable` reads from the newest `v<N>.metadata.json`), its data files the parts where they are.
 */
object IcebergTables {
  /** The directory under a shard's that holds its Iceberg metadata. */
  val MetadataDir = "metadata"

  /** The snapshot summary key naming the shard version a snapshot shows. */
  val VersionKey = "sparkpersist.version"

  /** How many metadata files the table keeps besides the newest (older ones are deleted at each commit). */
  val PreviousMetadataFiles = 20

  /** The shard's Iceberg table, if its metadata has been written. */
  def open(shard: ShardHandle): Option[Table] =
    if (!shard.fs.exists(new Path(shard.dir, MetadataDir))) None // (Iceberg would log its search for one)
    else {
      val ops = new ShardTableOperations(shard)
      Option(ops.current()).map(_ => new BaseTable(ops, shard.name))
    }

  /** A new Iceberg table of `schema` for the shard, its field ids the shard's column ids, holding no snapshot. */
  def create(shard: ShardHandle, schema: Schema, lastColumnId: Int): Table = {
    val ops = new ShardTableOperations(shard)
    ops.commit(null, TableMetadata.buildFromEmpty(2)
      .setLocation(shard.fs.makeQualified(shard.dir).toString)
      .setCurrentSchema(schema, lastColumnId)
      .setDefaultPartitionSpec(PartitionSpec.unpartitioned())
      .setDefaultSortOrder(SortOrder.unsorted())
      .setProperties(properties(schema).asJava)
      .build())
    new BaseTable(ops, shard.name)
  }

  /** The table properties of a shard's table of `schema`. */
  def properties(schema: Schema): Map[String, String] = Map(
    TableProperties.DEFAULT_NAME_MAPPING -> IcebergSchemas.nameMapping(schema),
    TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED -> "true",
    TableProperties.METADATA_PREVIOUS_VERSIONS_MAX -> PreviousMetadataFiles.toString,
    // A failed commit is re-planned by the sync from the newest metadata, never retried blindly.
    TableProperties.COMMIT_NUM_RETRIES -> "0")

  /** The path Iceberg knows the file at `key` (relative to the shard's directory) by. */
  def dataPath(shard: ShardHandle, key: String): String = shard.fs.makeQualified(new Path(shard.dir, key)).toString

  /** `part` as an Iceberg data file, with its statistics as metrics over `schema`'s columns. */
  def dataFile(shard: ShardHandle, part: PartMeta, schema: Schema, bounded: Set[Int]): DataFile =
    DataFiles.builder(PartitionSpec.unpartitioned())
      .withPath(dataPath(shard, part.fileKey))
      .withFormat(FileFormat.PARQUET)
      .withFileSizeInBytes(part.bytes)
      .withMetrics(PartMetrics.of(part, schema, bounded))
      .build()

  /** The data files and the delete files `manifests` of `table` list (each manifest read once, and closed). */
  def filesOf(table: Table, manifests: Iterable[ManifestFile]): (Seq[DataFile], Seq[DeleteFile]) = {
    val io = table.io()
    val (data, deletes) = manifests.partition(_.content() == ManifestContent.DATA)
    (data.toSeq.flatMap(m => entries(ManifestFiles.read(m, io, table.specs()))),
      deletes.toSeq.flatMap(m => entries(ManifestFiles.readDeleteManifest(m, io, table.specs()))))
  }

  private def entries[F <: ContentFile[F]](files: org.apache.iceberg.io.CloseableIterable[F]): Seq[F] =
    try files.asScala.map(_.copy()).toVector finally files.close()
}
