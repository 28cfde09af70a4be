#!/bin/sh
# Runs one test program under the Khronos validation layer (Debian's
# vulkan-validationlayers): every Vulkan call is checked against the
# specification's valid-usage rules. With tests/vk_layer_settings.txt the
# layer writes each error to the standard output ("Validation Error: [
# VUID-...") and stops the process that made the call with SIGTRAP (a
# test's subprocess too, whose output the test may capture). The program's
# output is passed on as it comes; the run fails (exit 1, or the program's
# own failure) when the layer reported an error, whatever the program's own
# verdict. Used by scripts/sanitize.sh vklayer, as meson's --wrapper
# (meson names the run's log testlog-vk-validation.sh).
#   tests/vk-validation.sh PROGRAM [ARGS...]
here=$(cd "$(dirname "$0")" && pwd)
VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation${VK_INSTANCE_LAYERS:+:$VK_INSTANCE_LAYERS}
VK_LAYER_SETTINGS_PATH=$here/vk_layer_settings.txt
export VK_INSTANCE_LAYERS VK_LAYER_SETTINGS_PATH

out=$(mktemp) || exit 2
rcf=$(mktemp) || { rm -f "$out"; exit 2; }
trap 'rm -f "$out" "$rcf"' EXIT
trap 'exit 143' TERM INT
{ "$@"; echo $? > "$rcf"; } | tee "$out"
rc=$(cat "$rcf")
[ -n "$rc" ] || rc=2
if grep -q 'Validation Error' "$out"; then
  echo "vk-validation: the validation layer reported errors (above)" >&2
  [ "$rc" -eq 0 ] && rc=1
fi
exit "$rc"
