# Sourced by the .ci/setup-* scripts: what makes them safe to run from many
# processes at once (the collector's test files, apps/web's, CI, a user's shell).
#   lock FD FILE     hold an exclusive flock on FILE, open as file descriptor FD
#                    (8: the machine-wide lock, 9: a data folder's), until the
#                    script exits; waits up to 15 min for whoever holds it, saying
#                    so on stderr. A server started meanwhile must not inherit the
#                    descriptor (it would hold the lock for its whole life): start
#                    it with `8<&- 9<&-`.
#   unlock FD        release it (closes FD)
#   can_install      0 when this user may install Debian packages (root, or
#                    passwordless sudo); sets SUDO for apt_install
#   apt_install PKG  apt-get update + install; callers hold the machine-wide lock
#                    (`lock 8 "${SYSTEM_LOCK}"`: one install at a time from these
#                    scripts); apt waits up to 300 s for a dpkg lock held by anyone else
#   since START      seconds elapsed since START (a `date +%s.%N` value), 0.1 s
# Each script defines log() before sourcing this file.

# The machine-wide lock (package installs, system users): in /tmp, so every user can open it.
SYSTEM_LOCK=/tmp/calm-ldp-setup-system.lock

lock() {
  local fd="$1" file="$2"
  mkdir -p "$(dirname "${file}")"
  [ -e "${file}" ] || { : >>"${file}"; chmod 666 "${file}" 2>/dev/null || true; }
  eval "exec ${fd}<\"\${file}\""
  if ! flock -n "${fd}"; then
    log "waiting for another set-up run to finish (lock ${file})"
    flock -w 900 "${fd}" || { log "still locked after 15 min: ${file}"; exit 1; }
  fi
}

SUDO=()
can_install() {
  command -v apt-get >/dev/null 2>&1 || return 1
  [ "$(id -u)" -eq 0 ] && return 0
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO=(sudo -n); return 0; fi
  return 1
}

apt_install() {
  local apt=(apt-get -qq -o DPkg::Lock::Timeout=300)
  "${SUDO[@]}" "${apt[@]}" update >&2
  # Through env: sudo would drop DEBIAN_FRONTEND from the environment.
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y --no-install-recommends "$@" >&2
}

since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

unlock() { eval "exec $1<&-"; }
