# as_root COMMAND...: runs COMMAND as root, through sudo when not root, with
# apt kept non-interactive.  Without sudo: one line saying what to do, then
# exit.  Sourced by .ci/install-deps and bench/install-deps.
export DEBIAN_FRONTEND=noninteractive
as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo env DEBIAN_FRONTEND=noninteractive "$@"
  else
    echo "$0: needs root to install packages and there is no sudo here: run it as root (su -c '$0'), then the rest as yourself" >&2
    exit 1
  fi
}
