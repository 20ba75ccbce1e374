# tools/dev/conformance_verdict.sh — sourced by tools/dev/conformance (client scenarios) and
# tools/dev/conformance-server (server scenarios): how one scenario's run of the official suite
# is judged. A scenario passes only when the suite exited 0, its checks.json exists, at least one
# check reached a verdict (SUCCESS or FAILURE), and every such check is SUCCESS with no WARNING:
# the suite reports a scenario in which nothing was exchanged as "Passed: 0/0" and exits 0,
# which is a failure here. Needs NODE (the suite's Node 22).

# summarize CHECKS_JSON: "<passed> <verdicts> <warnings>", then one line per FAILURE or WARNING
# check. Read with the suite's own Node so nothing else need be installed.
summarize() {
  # shellcheck disable=SC2016 # the program is JavaScript; its ${...} are template literals
  "$NODE" -e '
    const checks = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    if (!Array.isArray(checks)) throw new Error("checks.json is not an array");
    const count = (s) => checks.filter((c) => c.status === s).length;
    console.log(`${count("SUCCESS")} ${count("SUCCESS") + count("FAILURE")} ${count("WARNING")}`);
    for (const c of checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING")) {
      console.log(`    ${c.status} ${c.id}: ${c.errorMessage ?? c.description}`);
    }' "$1"
}

# verdict SCENARIO OUT_DIR SUITE_EXIT TIMEOUT_MS: prints "PASS ..." or "FAIL ..." (with the
# failed checks); returns 0 for a pass, 1 otherwise.
verdict() {
  local scenario="$1" out="$2" rc="$3" timeout_ms="$4" checks summary passed verdicts warnings
  checks="$(find "$out" -name checks.json -print -quit)"
  if [[ -z "$checks" ]]; then
    printf 'FAIL %s: the suite wrote no checks (exit %d); see %s\n' "$scenario" "$rc" "$out/suite.log"
    sed 's/^/    /' "$out/suite.log" | head -n 20
    return 1
  fi
  summary="$(summarize "$checks")" || {
    printf 'FAIL %s: unreadable %s\n' "$scenario" "$checks"
    return 1
  }
  read -r passed verdicts warnings <<<"$(head -n 1 <<<"$summary")"
  local reasons=()
  ((rc == 0)) || reasons+=("the suite exited $rc")
  ((verdicts > 0)) || reasons+=("no check reached a verdict (nothing the scenario checks was exchanged)")
  ((passed == verdicts)) || reasons+=("$((verdicts - passed)) of $verdicts checks failed")
  ((warnings == 0)) || reasons+=("$warnings warnings")
  if grep -q 'CLIENT TIMED OUT' "$out/suite.log"; then reasons+=("the client timed out after $timeout_ms ms"); fi
  if grep -q 'CLIENT EXITED WITH ERROR' "$out/suite.log"; then reasons+=("the client exited non-zero"); fi
  if ((${#reasons[@]} == 0)); then
    printf 'PASS %s: %d/%d checks passed\n' "$scenario" "$passed" "$verdicts"
    return 0
  fi
  local joined="${reasons[0]}" reason
  for reason in "${reasons[@]:1}"; do joined+="; $reason"; done
  printf 'FAIL %s: %s; results in %s\n' "$scenario" "$joined" "$(dirname "$checks")"
  tail -n +2 <<<"$summary"
  return 1
}
