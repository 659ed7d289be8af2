#!/usr/bin/env bash
# Sourced by .ci/run and .ci/docker.sh: apt-get that waits for another apt or dpkg process instead
# of failing at once. `-o DPkg::Lock::Timeout` makes apt wait for dpkg's lock only; `apt-get update`
# takes the package lists' lock (/var/lib/apt/lists/lock) and fails straight away while another
# apt holds it (a fresh machine's own unattended update, say). So: retry while the failure is a
# lock, every LNM_APT_LOCK_EVERY seconds (default 5), for at most LNM_APT_LOCK_WAIT seconds
# (default 600); any other failure is returned at once with apt's own message. Safe under set -e.
apt_get() {
  local waited=0 limit="${LNM_APT_LOCK_WAIT:-600}" every="${LNM_APT_LOCK_EVERY:-5}" out rc
  while :; do
    out="$(DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 "$@" 2>&1)" && rc=0 || rc=$?
    if [ $rc -eq 0 ]; then
      [ -z "${APT_VERBOSE:-}" ] || printf '%s\n' "$out"
      return 0
    fi
    if printf '%s' "$out" | grep -qiE 'could not get lock|unable to lock|is another process using it|lock-frontend'; then
      if [ "$waited" -ge "$limit" ]; then
        printf '%s\n' "$out" | tail -n 5 >&2
        echo "[apt] the package lock was still held after ${waited} s; giving up" >&2
        return $rc
      fi
      [ "$waited" -gt 0 ] || echo "[apt] another apt or dpkg holds the package lock; waiting (at most ${limit} s)" >&2
      sleep "$every"
      waited=$((waited + every))
      continue
    fi
    printf '%s\n' "$out" | tail -n 20 >&2
    return $rc
  done
}
