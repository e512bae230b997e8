# sparkpersist — every entry point. `make demo` and `make test` work on a fresh machine with
# Java 17, Maven (only to fetch the sbt launcher from Maven Central) and Python 3.11.
include versions.properties
# The Spark line to build, test and run on: SPARK=4.3 or SPARK=4.3.0 (the pyspark release pinned for
# that line in versions.properties); default the default line.
SPARK        ?= $(spark_default_line)
LINE         := $(word 1,$(subst ., ,$(SPARK))).$(word 2,$(subst ., ,$(SPARK)))
PYSPARK      := $(line.$(LINE).spark)
ifeq ($(PYSPARK),)
$(error Spark line $(LINE) is not declared in versions.properties; the lines are: $(spark_lines))
endif
ifneq ($(words $(subst ., ,$(SPARK))),2)
ifneq ($(SPARK),$(PYSPARK))
$(error Spark $(SPARK): line $(LINE) is built against pyspark $(PYSPARK) (versions.properties); ask for SPARK=$(LINE) or SPARK=$(PYSPARK))
endif
endif
OTHER_LINES  := $(filter-out $(spark_default_line),$(spark_lines))
SBT_VERSION  := $(shell sed -n 's/^sbt.version=//p' project/build.properties)
SBT_LAUNCHER := build/sbt-launch-$(SBT_VERSION).jar
JAR_NAME     := sparkpersist-spark-$(LINE)_2.13-$(package_version).jar
JAR          := jvm/target/spark-$(LINE)/scala-2.13/$(JAR_NAME)
# One virtualenv per line, with that line's pyspark: its jars are the Spark the line builds against.
VENV         := .venv/spark-$(LINE)
PY           := $(VENV)/bin/python
PYTHON       ?= python3
# (a shell lookup when used: make's own wildcard may have cached the directory before the venv existed)
SPARK_JARS    = $(abspath $(shell ls -d $(VENV)/lib/python*/site-packages/pyspark/jars 2>/dev/null | head -1))
# sbt resolves only from `local` and `maven-central` (build/repositories), as Delta Lake's build/sbt does.
SBT = java -Xms512m -Xmx3g -Xss4m \
	-Dsbt.override.build.repos=true -Dsbt.repository.config=build/repositories \
	-Dsbt.supershell=false -Dsbt.server.forcestart=false -Dsbt.ci=true \
	-Dsparkpersist.line=$(LINE) -Dsparkpersist.sparkJars=$(SPARK_JARS) \
	-jar $(SBT_LAUNCHER)

.PHONY: setup jar dist install test test-line test-py test-dbt demo bench soak clean s3a-jars iceberg-spark

setup: $(SBT_LAUNCHER) $(VENV)/.installed

$(SBT_LAUNCHER): project/build.properties
	mvn -q -B org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy \
	  -Dartifact=org.scala-sbt:sbt-launch:$(SBT_VERSION) -DoutputDirectory=build
	@test -f $@

$(VENV)/.installed: versions.properties python/requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q "pyspark==$(PYSPARK)" -r python/requirements-dev.txt
	touch $@

# The jar and the installed package are rebuilt only when their sources change, so re-running
# `make demo` (or any target) does not start sbt again.
JVM_INPUTS := build.sbt versions.properties $(wildcard project/*.sbt project/*.scala) $(shell find jvm/src/main -type f)
PY_JARS    := python/sparkpersist/jars
PY_JAR     := $(PY_JARS)/$(JAR_NAME)
PY_INPUTS  := python/pyproject.toml python/setup.py $(shell find python/sparkpersist -name '*.py' -o -name py.typed)
INSTALLED  := $(VENV)/.sparkpersist-installed

# The line's jar (our classes and Apache Iceberg's, shaded: one jar for --jars, the wheel and the
# Thrift server), copied into the Python package beside the other lines' jars and the declaration
# of the lines (the package reads it to pick the jar of the installed pyspark).
jar: $(PY_JAR)

$(PY_JAR): $(SBT_LAUNCHER) $(VENV)/.installed $(JVM_INPUTS)
	$(SBT) sparkpersist/assembly
	mkdir -p $(PY_JARS)
	rm -f $(PY_JARS)/sparkpersist-spark-$(LINE)_*.jar
	cp $(JAR) $(PY_JARS)/
	cp versions.properties $(PY_JARS)/versions.properties

# One wheel in dist/ carrying the jar of every line: `pip install dist/*.whl` beside any supported pyspark.
dist: setup
	for line in $(spark_lines); do $(MAKE) --no-print-directory jar SPARK=$$line || exit 1; done
	rm -rf dist python/build
	$(PY) -m pip wheel -q --no-deps -w dist ./python
	@ls dist/*.whl

# Installs the Python package (with the jars built so far inside it) into the line's virtualenv.
install: setup $(INSTALLED)

$(INSTALLED): $(VENV)/.installed $(PY_JAR) $(PY_INPUTS)
	$(PY) -m pip install -q --no-deps --force-reinstall ./python
	touch $@

# hadoop-aws and the AWS SDK it was built with, for the object-store tests only (never bundled in
# the jar): S3A reaches the S3 server the tests start. Users add them with --packages (docs/storage.md).
S3A_DIR  := build/s3a/spark-$(LINE)
S3A_JARS := $(S3A_DIR)/.fetched
s3a-jars: $(S3A_JARS)

$(S3A_JARS): versions.properties
	rm -rf $(S3A_DIR)
	mvn -q -B org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy \
	  -Dartifact=org.apache.hadoop:hadoop-aws:$(line.$(LINE).hadoop) -DoutputDirectory=$(S3A_DIR)
	mvn -q -B org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy \
	  -Dartifact=software.amazon.awssdk:bundle:$(line.$(LINE).aws_sdk) -DoutputDirectory=$(S3A_DIR)
	for extra in $(line.$(LINE).s3a_extra); do mvn -q -B org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy \
	  -Dartifact=$$extra -DoutputDirectory=$(S3A_DIR) || exit 1; done
	touch $@

# Every test: the whole suite on the default line (JVM suites, then the Python/end-to-end suite
# twice: as users run it, and with soft pushdown failing on any violation, where every part is read
# and every skipped part verified), then on each other line the JVM suites that exercise the Spark
# internals differing between lines (jvm/shim-suites.txt) and the pytest pass as users run it (the
# soft pass checks the pruning decisions, which are the jar's own on every line; one line's soft pass
# keeps `make test` inside CI's limit). The soft pass runs the files whose tests read shards with the
# filters users write (SOFT_TESTS); the others test surfaces (servers, catalogs, packaging, errors,
# interop) whose outcome does not depend on the pushdown mode, and the JVM suites read every
# generated filter in every mode, soft failing on violations, already.
# `make test-line SPARK=4.3` runs one line's whole suite (both passes).
SOFT := spark.sparkpersist.pushdown.mode=soft,spark.sparkpersist.pushdown.soft.failOnViolation=true
SHIM_SUITES := $(shell sed '/^\#/d' jvm/shim-suites.txt)
test:
	$(MAKE) --no-print-directory test-line SPARK=$(spark_default_line) JVM_TESTS=test
	$(MAKE) --no-print-directory test-dbt SPARK=$(spark_default_line)
	for line in $(OTHER_LINES); do \
	  $(MAKE) --no-print-directory test-line SPARK=$$line JVM_TESTS="testOnly $(SHIM_SUITES)" PY_PASSES=plain || exit 1; done

# Apache Iceberg's Spark runtime, where one is published for the line (versions.properties), for
# tests/test_iceberg_spark.py only: Spark's own Iceberg source reads the shards' Iceberg metadata.
ICEBERG_SPARK_DIR  := build/iceberg-spark/spark-$(LINE)
ICEBERG_SPARK_JARS := $(ICEBERG_SPARK_DIR)/.fetched
iceberg-spark: $(ICEBERG_SPARK_JARS)

$(ICEBERG_SPARK_JARS): versions.properties
	rm -rf $(ICEBERG_SPARK_DIR) && mkdir -p $(ICEBERG_SPARK_DIR)
	for artifact in $(line.$(LINE).iceberg_spark); do mvn -q -B org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy \
	  -Dartifact=$$artifact -DoutputDirectory=$(ICEBERG_SPARK_DIR) || exit 1; done
	touch $@

JVM_TESTS ?= test
test-line: setup install $(S3A_JARS) $(ICEBERG_SPARK_JARS)
	$(SBT) "sparkpersist/$(JVM_TESTS)"
	$(MAKE) --no-print-directory test-py SPARK=$(LINE) PY_PASSES="$(PY_PASSES)"

PY_PASSES ?= plain soft
SOFT_TESTS := $(addprefix tests/test_,$(addsuffix .py,pruning json index multi_shard nested_nulls write_read \
  monotone_udf schema_evolution defaults clustering statements beside_a_stream streaming lifecycle))
PYTEST := $(PY) -m pytest -q --durations=10
test-py: setup install $(S3A_JARS) $(ICEBERG_SPARK_JARS)
	$(PYTEST) tests --ignore=tests/test_dbt.py
	$(if $(filter soft,$(PY_PASSES)),SPARKPERSIST_TEST_CONF="$(SOFT)" $(PYTEST) $(SOFT_TESTS))

# The dbt project (tests/dbt) against the Thrift server with the session catalog, on the default line
# only: dbt speaks SQL to the server, and what differs between lines is the JVM's (shim suites). dbt
# has a virtualenv of its own (python/requirements-dbt.txt says why).
DBT_VENV := .venv/dbt
$(DBT_VENV)/.installed: python/requirements-dbt.txt
	$(PYTHON) -m venv $(DBT_VENV)
	$(DBT_VENV)/bin/python -m pip install -q -r python/requirements-dbt.txt
	touch $@

test-dbt: setup install $(DBT_VENV)/.installed
	SPARKPERSIST_DBT=$(abspath $(DBT_VENV))/bin/dbt $(PY) -m pytest -q tests/test_dbt.py

demo: setup install
	$(PY) -m sparkpersist demo --data ./demo-data

# Benchmarks (not tests): each prints a table and writes JSON under bench/out/; plot.py draws the
# PNGs from it. Sizes are arguments (see each bench's scaladoc), e.g. `make bench HISTORY="30 2000 5"`.
HISTORY    ?= 60 5000 7 1,2,5,10
RESTART    ?= 60 5000 7 1,2,5,10
INCUMBENTS ?= 200 5000 5
JOIN       ?= 10000000 200 1000 5
AGGREGATES ?= 360,10000 900000 5
DML        ?= 10000000 100
STREAMSTATEMENTS ?= 10000000 300 10 1000 0.01
PLANNING   ?= 1000,10000,100000,1000000
SCANPLAN   ?= 100000,1000000 5
WRITE      ?= 2000000 8 3
PRUNING    ?= 1000 2000 7
SNAPSHOT   ?= 1000000
CONSOLIDATED ?= 10000000 3
LOOKUP     ?= 5000000 2 5
SOUNDNESS  ?= 2500 42
STATS      ?= 500 200
CASTSTATS  ?= 1000000 8 3
VARIANTPARSE ?= 200000 5
COMPACTION ?= 5000 200 50 100 5
S3A        ?= 4 20 3 30
SOAK       ?= 1000 1
TRUTH      ?= 1000000 1
RELIABILITY ?= 100000 50 8 50 1000000 1
INDEX      ?= 48 20000 5
CLUSTER    ?= 90 10000 4 1000
ICEBERG    ?= 40 20000 10
bench: setup install $(S3A_JARS)
	$(SBT) "bench/runMain sparkpersist.bench.HistoryBench $(HISTORY)" \
	  "bench/runMain sparkpersist.bench.RestartBench $(RESTART)" \
	  "bench/runMain sparkpersist.bench.IncumbentsBench $(INCUMBENTS)" \
	  "bench/runMain sparkpersist.bench.JoinBench $(JOIN)" \
	  "bench/runMain sparkpersist.bench.AggregateBench $(AGGREGATES)" \
	  "bench/runMain sparkpersist.bench.DmlBench $(DML)" \
	  "bench/runMain sparkpersist.bench.StreamingStatementsBench $(STREAMSTATEMENTS)" \
	  "bench/runMain sparkpersist.bench.PlanningBench $(PLANNING)" \
	  "bench/runMain sparkpersist.bench.ScanPlanningBench $(SCANPLAN)" \
	  "bench/runMain sparkpersist.bench.WriteBench $(WRITE)" \
	  "bench/runMain sparkpersist.bench.PruningBench $(PRUNING)" \
	  "bench/runMain sparkpersist.bench.SnapshotReadBench $(SNAPSHOT)" \
	  "bench/runMain sparkpersist.bench.ConsolidatedReadBench $(CONSOLIDATED)" \
	  "bench/runMain sparkpersist.bench.PointLookupBench $(LOOKUP)" \
	  "bench/runMain sparkpersist.bench.StatsSizeBench $(STATS)" \
	  "bench/runMain sparkpersist.bench.CastStatsBench $(CASTSTATS)" \
	  "bench/runMain sparkpersist.bench.VariantParseBench $(VARIANTPARSE)" \
	  "bench/runMain sparkpersist.bench.CompactionBench $(COMPACTION)" \
	  "bench/runMain sparkpersist.bench.IndexBench $(INDEX)" \
	  "bench/runMain sparkpersist.bench.ClusterBench $(CLUSTER)" \
	  "bench/runMain sparkpersist.bench.IcebergBench $(ICEBERG)" \
	  "bench/runMain sparkpersist.bench.InterpretBench soundness $(SOUNDNESS)" \
	  "bench/runMain sparkpersist.bench.RoundTripSoak $(SOAK)"
	$(PY) bench/s3a_bench.py $(S3A)
	$(PY) bench/plot.py

# The write boundary's round-trip property on SOAK = "<schemas> <seed>" random schemas (issue 20);
# RoundTripPropertySuite runs the same on 50 in `make test`. Then the reliability suite at full size
# (issue 13; RELIABILITY = "<fuzz> <crashes> <processes> <appends> <checks> <seed>", optionally followed by
# --cases=<group|case>,... and --parallel=<crash runs at a time>). Then both proofs of the part
# decision (ruled out, proven true; issue 33) on TRUTH = "<checks per ANSI mode> <seed>";
# ProvenTrueSuite runs 200 cases per mode in `make test`. Exit non-zero on any failure.
soak: $(SBT_LAUNCHER)
	$(SBT) "bench/runMain sparkpersist.bench.RoundTripSoak $(SOAK)" \
	  "bench/runMain sparkpersist.bench.ReliabilitySoak $(RELIABILITY)" \
	  "bench/runMain sparkpersist.bench.InterpretBench truth $(TRUTH)"

clean:
	rm -rf jvm/target bench/jvm/target target project/target python/build python/sparkpersist/jars dist .pytest_cache
