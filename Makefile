# sparkpersist — every entry point. `make demo` and `make test` work on a fresh machine with
# Java 17, Maven (only to fetch the sbt launcher from Maven Central) and Python 3.11.
include versions.properties
SBT_VERSION  := $(shell sed -n 's/^sbt.version=//p' project/build.properties)
SBT_LAUNCHER := build/sbt-launch-$(SBT_VERSION).jar
JAR          := jvm/target/scala-2.13/sparkpersist_2.13-$(package_version).jar
VENV         := .venv
PY           := $(VENV)/bin/python
PYTHON       ?= python3
# sbt resolves only from `local` and `maven-central` (build/repositories), as Delta Lake's build/sbt does.
SBT := java -Xms512m -Xmx3g -Xss4m \
	-Dsbt.override.build.repos=true -Dsbt.repository.config=build/repositories \
	-Dsbt.supershell=false -Dsbt.server.forcestart=false -Dsbt.ci=true \
	-jar $(SBT_LAUNCHER)

.PHONY: setup jar test test-jvm test-py demo bench soak clean s3a-jars

setup: $(SBT_LAUNCHER) $(VENV)/.installed

$(SBT_LAUNCHER): project/build.properties
	mvn -q -B org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy \
	  -Dartifact=org.scala-sbt:sbt-launch:$(SBT_VERSION) -DoutputDirectory=build
	@test -f $@

$(VENV)/.installed: versions.properties python/requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q "pyspark==$(spark_version)" -r python/requirements-dev.txt
	touch $@

# The jar and the installed package are rebuilt only when their sources change, so re-running
# `make demo` (or any target) does not start sbt again.
JVM_INPUTS := build.sbt versions.properties $(wildcard project/*.sbt project/*.scala) $(shell find jvm/src/main -type f)
PY_JAR     := python/sparkpersist/jars/$(notdir $(JAR))
PY_INPUTS  := python/pyproject.toml python/setup.py $(shell find python/sparkpersist -name '*.py' -o -name py.typed)
INSTALLED  := $(VENV)/.sparkpersist-installed

jar: $(PY_JAR)

$(PY_JAR): $(SBT_LAUNCHER) $(JVM_INPUTS)
	$(SBT) sparkpersist/package
	mkdir -p python/sparkpersist/jars
	rm -f python/sparkpersist/jars/*.jar
	cp $(JAR) python/sparkpersist/jars/

# Installs the Python package (with the jar inside it) into the project's virtualenv.
install: setup $(INSTALLED)

$(INSTALLED): $(VENV)/.installed $(PY_JAR) $(PY_INPUTS)
	$(PY) -m pip install -q --no-deps --force-reinstall ./python
	touch $@

# hadoop-aws and the AWS SDK it was built with, for the object-store tests only (never bundled in
# the jar): S3A reaches the S3 server the tests start. Users add them with --packages (docs/storage.md).
S3A_JARS := build/s3a/.fetched
s3a-jars: $(S3A_JARS)

$(S3A_JARS): versions.properties
	mvn -q -B org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy \
	  -Dartifact=org.apache.hadoop:hadoop-aws:$(hadoop_version) -DoutputDirectory=build/s3a
	mvn -q -B org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy \
	  -Dartifact=software.amazon.awssdk:bundle:$(aws_sdk_version) -DoutputDirectory=build/s3a
	touch $@

# JVM suites, then the Python/end-to-end suite twice: as users run it, and with soft pushdown
# failing on any violation (every part is read and every skipped part verified).
SOFT := spark.sparkpersist.pushdown.mode=soft,spark.sparkpersist.pushdown.soft.failOnViolation=true
test: setup install $(S3A_JARS)
	$(SBT) sparkpersist/test
	$(PY) -m pytest -q tests
	SPARKPERSIST_TEST_CONF="$(SOFT)" $(PY) -m pytest -q tests

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
bench: setup install $(S3A_JARS)
	$(SBT) "bench/runMain sparkpersist.bench.HistoryBench $(HISTORY)" \
	  "bench/runMain sparkpersist.bench.RestartBench $(RESTART)" \
	  "bench/runMain sparkpersist.bench.IncumbentsBench $(INCUMBENTS)" \
	  "bench/runMain sparkpersist.bench.JoinBench $(JOIN)" \
	  "bench/runMain sparkpersist.bench.AggregateBench $(AGGREGATES)" \
	  "bench/runMain sparkpersist.bench.DmlBench $(DML)" \
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
	rm -rf jvm/target target project/target python/build python/sparkpersist/jars .pytest_cache
