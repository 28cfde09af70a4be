#!/bin/sh
# The validation layer's own check (meson test vk-validation-self): through
# tests/vk-validation.sh, a 0-byte buffer (tests/faults/vk-invalid.c) must
# fail with the layer's report of VUID-VkBufferCreateInfo-size-00912, and a
# 4-byte one pass with no report; without the layer the 0-byte buffer
# passes (the driver accepts it: the layer is what finds it); a child
# process's 0-byte buffer fails the run though its output is kept from the
# wrapper (the layer stops it). Fails where
# the layer is not installed (vulkan-validationlayers).
#   tests/check-vk-validation.sh WRAPPER PROGRAM
wrap=$1 prog=$2
out=$(mktemp) || exit 2
fail () {
  echo "vk-validation-self: $*"
  cat "$out"
  rm -f "$out"
  exit 1
}

env -u VK_INSTANCE_LAYERS -u VK_LAYER_SETTINGS_PATH "$prog" invalid \
  > "$out" 2>&1
rc=$?
[ "$rc" -eq 77 ] && { rm -f "$out"; echo "no Vulkan device"; exit 77; }
[ "$rc" -eq 0 ] || fail "without the layer the 0-byte buffer exited $rc"
grep -q 'Validation Error' "$out" && fail "a report without the layer"

sh "$wrap" "$prog" invalid > "$out" 2>&1
rc=$?
grep -q 'VUID-VkBufferCreateInfo-size-00912' "$out" ||
  fail "no report of the 0-byte buffer (is vulkan-validationlayers installed?)"
[ "$rc" -ne 0 ] || fail "the 0-byte buffer under the layer exited 0"

# (a child's error, its output kept from the wrapper as a test's
# subprocess's is: the child stops, the run fails)
sh "$wrap" sh -c '"$0" invalid > /dev/null 2>&1; exit $?' "$prog" \
  > "$out" 2>&1
rc=$?
[ "$rc" -ne 0 ] || fail "a child's 0-byte buffer under the layer exited 0"

sh "$wrap" "$prog" valid > "$out" 2>&1
rc=$?
[ "$rc" -eq 0 ] || fail "the 4-byte buffer under the layer exited $rc"
grep -q 'Validation Error' "$out" && fail "a report of the 4-byte buffer"
rm -f "$out"
echo "vk-validation-self: the layer reports the invalid call and passes the valid one"
