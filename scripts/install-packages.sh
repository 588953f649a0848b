#!/usr/bin/env bash
# Installs the Debian packages named that are not installed yet, with apt-get (through sudo
# when not root); does nothing when all are there. Every script that needs packages
# (setup.sh, the Slurm cluster, the sanitizer builds' tools) installs through this one.
# A name an installed package provides counts as installed: NodeSource's nodejs provides
# npm and conflicts with Debian's, so asking apt-get for npm there would fail.
#   scripts/install-packages.sh PACKAGE…
set -euo pipefail
provided=$(dpkg-query -W -f='${db:Status-Abbrev}|${Provides}\n' 2>/dev/null |
  awk -F'|' '$1 ~ /^ii/ && $2 != "" { print $2 }' | tr ',' '\n' | sed 's/(.*//; s/[[:space:]]//g; s/:.*//' || true)
missing=()
for package in "$@"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" &&
     ! grep -qxF "$package" <<<"$provided"; then
    missing+=("$package")
  fi
done
[ ${#missing[@]} -gt 0 ] || exit 0

echo "install-packages: installing ${missing[*]}" >&2
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null; then
    echo "install-packages: need root to install ${missing[*]}: run as root, or install sudo" >&2
    exit 1
  fi
  sudo=(sudo)
fi
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
