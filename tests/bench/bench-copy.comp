// The SM copy roofline of bench-kernel: dst[i] = src[i] over n uvec4
// (16 bytes each), one uvec4 per invocation per pass of a grid-stride loop
// (the host dispatches min(ceil(n / 256), maxComputeWorkGroupCount[0])
// groups, so on most GPUs every invocation copies exactly one element).
#version 450

layout (local_size_x = 256) in;

layout (std430, set = 0, binding = 0) readonly buffer Src { uvec4 src[]; };
layout (std430, set = 0, binding = 1) writeonly buffer Dst { uvec4 dst[]; };

layout (push_constant) uniform Push { uint n; } pc;

void
main ()
{
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;

  for (uint i = gl_GlobalInvocationID.x; i < pc.n; i += stride)
    dst[i] = src[i];
}
