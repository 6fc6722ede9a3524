#!/usr/bin/env bash
# Installs Vigil on an edge box (Debian/Ubuntu/JetPack) as the systemd service `vigil`.
# Run as root from a checkout:  sudo VIGIL_MODEL_MIRROR=/path/to/models scripts/install.sh
#   PREFIX             install folder (default /opt/vigil)
#   VIGIL_MODEL_MIRROR folder holding the model files (else they are downloaded upstream)
#   WITH_SYSTEM_FFMPEG=1  also apt-get install ffmpeg (hardware decode for the nvidia/vaapi/jetson profiles)
set -euo pipefail

PREFIX=${PREFIX:-/opt/vigil}
SRC=$(cd "$(dirname "$0")/.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "install.sh: run as root" >&2; exit 1; }

node_bin=$(command -v node || true)
if [ -z "$node_bin" ]; then
  echo "install.sh: Node.js 20.18+ is required (e.g. apt-get install nodejs from NodeSource or your distribution)" >&2
  exit 1
fi
node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=18)?0:1)' || {
  echo "install.sh: Node.js $(node --version) is too old; 20.18+ is required" >&2
  exit 1
}

# OCR-B, the MRZ font, and three common monospace faces an MRZ may be printed in: the document
# module renders its glyph templates from them (without any, the MRZ is read by the recogniser
# alone, and the module's health detail says so). Only the missing packages are installed.
MRZ_FONT_PACKAGES=""
[ -f /usr/share/fonts/opentype/ocr-b/OCRB.otf ] || MRZ_FONT_PACKAGES="$MRZ_FONT_PACKAGES fonts-ocr-b"
[ -f /usr/share/fonts/truetype/freefont/FreeMono.ttf ] || MRZ_FONT_PACKAGES="$MRZ_FONT_PACKAGES fonts-freefont-ttf"
[ -f /usr/share/fonts/truetype/liberation/LiberationMono-Regular.ttf ] || MRZ_FONT_PACKAGES="$MRZ_FONT_PACKAGES fonts-liberation"
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf ] || MRZ_FONT_PACKAGES="$MRZ_FONT_PACKAGES fonts-dejavu-core"
if [ -n "$MRZ_FONT_PACKAGES" ] && command -v apt-get >/dev/null; then
  # shellcheck disable=SC2086 # one word per package
  apt-get update -qq && apt-get install -y -qq --no-install-recommends $MRZ_FONT_PACKAGES || echo "install.sh: could not install$MRZ_FONT_PACKAGES; the MRZ glyph classifier has fewer fonts (or none)" >&2
fi

if [ "${WITH_SYSTEM_FFMPEG:-0}" = 1 ]; then
  apt-get update -qq && apt-get install -y -qq ffmpeg
fi

# A dedicated system user; video/render give access to cameras and DRM render nodes.
if ! id vigil >/dev/null 2>&1; then
  useradd --system --home-dir /var/lib/vigil --no-create-home --shell /usr/sbin/nologin vigil
fi
for g in video render; do getent group "$g" >/dev/null && usermod -a -G "$g" vigil; done

echo "install.sh: installing into $PREFIX"
mkdir -p "$PREFIX"
tar -C "$SRC" --exclude=./node_modules --exclude=./data --exclude=./.git --exclude='./models/*.onnx' -cf - . | tar -C "$PREFIX" -xf -
cd "$PREFIX"
export ONNXRUNTIME_NODE_INSTALL=${ONNXRUNTIME_NODE_INSTALL:-skip}
npm ci --no-audit --no-fund
npm run build
node scripts/fetch-models.mjs
npm prune --omit=dev --no-audit --no-fund

mkdir -p /etc/vigil /var/lib/vigil
[ -f /etc/vigil/vigil.yaml ] || cp systemd/vigil.yaml.example /etc/vigil/vigil.yaml
[ -f /etc/vigil/vigil.env ] || cp systemd/vigil.env.example /etc/vigil/vigil.env
chown -R vigil:vigil /var/lib/vigil
node dist/src/cli.js validate-config --config /etc/vigil/vigil.yaml

sed -e "s#@NODE@#${node_bin}#g" -e "s#@PREFIX@#${PREFIX}#g" systemd/vigil.service >/etc/systemd/system/vigil.service
systemd-analyze verify /etc/systemd/system/vigil.service
systemctl daemon-reload
systemctl enable --now vigil
echo "install.sh: vigil is running; check: systemctl status vigil; curl http://127.0.0.1:8080/api/v1/admin/health"
