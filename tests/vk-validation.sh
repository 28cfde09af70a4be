#!/bin/sh
# Runs one test program under the Khronos validation layer (Debian's
# vulkan-validationlayers): every Vulkan call of the engine is checked
# against the specification's valid-usage rules. The layer writes what it
# finds to the program's standard output ("Validation Error: [ VUID-...");
# the program's output is passed on unchanged once it has ended, and the
# run fails (exit 1) when the layer reported an error, whatever the
# program's own verdict. The layer's warnings and performance notes are
# not errors. Used by scripts/sanitize.sh vklayer, as meson's --wrapper
# (meson names the run's log testlog-vk-validation.sh).
#   tests/vk-validation.sh PROGRAM [ARGS...]
layer=VK_LAYER_KHRONOS_validation
VK_INSTANCE_LAYERS=$layer${VK_INSTANCE_LAYERS:+:$VK_INSTANCE_LAYERS}
export VK_INSTANCE_LAYERS

out=$(mktemp) || exit 2
"$@" > "$out"
rc=$?
cat "$out"
if grep -q 'Validation Error' "$out"; then
  echo "vk-validation: the validation layer reported errors (above)" >&2
  [ "$rc" -eq 0 ] && rc=1
fi
rm -f "$out"
exit "$rc"
