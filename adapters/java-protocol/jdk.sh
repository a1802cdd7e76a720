# Sourced by the setup and test scripts of JVM adapters (adapters/java, examples/scala-adapter): picks the JDK (>= 21) that builds and runs the worker, and runs Maven.
#
# dyno_select_jdk prints the home of $JAVA_HOME when that is a JDK >= 21, else of the newest
# JDK >= 21 under ${DYNO_JVM_ROOT:-/usr/lib/jvm} (by the JAVA_VERSION of its `release` file);
# it returns 1 when there is none.

DYNO_MIN_JAVA=21

# The full JAVA_VERSION ("25.0.3", "21.0.8", "1.8.0_442") of the JDK at $1.
dyno_jdk_version() {
  local rel="$1/release"
  [ -r "$rel" ] && [ -x "$1/bin/java" ] && [ -x "$1/bin/javac" ] || return 1
  sed -n 's/^JAVA_VERSION="\([^"]*\)".*$/\1/p' "$rel" | head -n 1
}

# The feature (major) number of a JAVA_VERSION string.
dyno_jdk_major() {
  local v=${1#1.}
  v=${v%%[._+-]*}
  case $v in '' | *[!0-9]*) echo 0 ;; *) echo "$v" ;; esac
}

dyno_select_jdk() {
  local v home best="" best_v=""
  if [ -n "${JAVA_HOME:-}" ] && v=$(dyno_jdk_version "$JAVA_HOME") && [ -n "$v" ] &&
    [ "$(dyno_jdk_major "$v")" -ge "$DYNO_MIN_JAVA" ]; then
    echo "$JAVA_HOME"
    return 0
  fi
  for rel in "${DYNO_JVM_ROOT:-/usr/lib/jvm}"/*/release; do
    home=${rel%/release}
    v=$(dyno_jdk_version "$home") && [ -n "$v" ] || continue
    [ "$(dyno_jdk_major "$v")" -ge "$DYNO_MIN_JAVA" ] || continue
    if [ -z "$best" ] || [ "$(printf '%s\n%s\n' "$best_v" "$v" | sort -V | tail -n 1)" != "$best_v" ]; then
      best=$home
      best_v=$v
    fi
  done
  [ -n "$best" ] || return 1
  echo "$best"
}

# Runs Maven under the JDK at $1 (the remaining arguments go to mvn), quietly.
dyno_mvn() {
  local jdk=$1
  shift
  # Maven's own JVM (not the tests' forks, not a worker) runs for seconds:
  # C2 and parallel GC threads cost it more CPU than they save. C1 only and
  # the serial collector took the java adapter's tests from 63 to 36 s of
  # CPU and the Scala example's from 46 to 29 (docs/ci.md). MAVEN_OPTS, after
  # these, can set them back.
  local opts="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC ${MAVEN_OPTS:-}"
  # Maven 3.8's bundled Guava touches sun.misc.Unsafe; JDK >= 24 warns about it on every run.
  if [ "$(dyno_jdk_major "$(dyno_jdk_version "$jdk")")" -ge 24 ]; then
    opts="$opts --sun-misc-unsafe-memory-access=allow"
  fi
  JAVA_HOME=$jdk MAVEN_OPTS=$opts mvn -B -Dstyle.color=never "$@"
}

# lockfile.json is committed without the repository's address: each "resolved" URL is written as
# "repository:central/<path>". dyno_central_url asks Maven for the address of its `central`
# repository, so that ./test can put it back before maven-lockfile validates the file.
DYNO_HELP_PLUGIN=org.apache.maven.plugins:maven-help-plugin:3.5.1
DYNO_LOCKFILE_PLUGIN=io.github.chains-project:maven-lockfile:5.18.3
dyno_central_url() {
  local jdk=$1 pom=$2 id url
  id=$(dyno_mvn "$jdk" -q -f "$pom" "$DYNO_HELP_PLUGIN:evaluate" -DforceStdout \
    -Dexpression='project.remoteArtifactRepositories[0].id' | sed 's/\x1b\[[0-9;]*m//g')
  url=$(dyno_mvn "$jdk" -q -f "$pom" "$DYNO_HELP_PLUGIN:evaluate" -DforceStdout \
    -Dexpression='project.remoteArtifactRepositories[0].url' | sed 's/\x1b\[[0-9;]*m//g')
  [ "$id" = central ] && [ -n "$url" ] || return 1
  echo "${url%/}"
}
