// bench-cufft: the CUDA peer, built on the GPU machine by run-sweep.sh:
//   nvcc -O3 -arch=native -o bench-cufft tests/bench/bench-cufft.cu -lcufft
// cuFFT batched R2C (FFT only, out of place), same N and batch as
// bench-kernel (1 GiB of float input per call), runs of `repeats`
// executions for 0.3 s (the GPU's clock up, as bench-kernel's warm-up), then
// the median of 5 such runs timed with cudaEvents. GB/s counted like ours (4N + 4(N/2+1)
// bytes per frame) and as cuFFT really moves them (4N + 8(N/2+1)); relative
// L2 error vs a double-precision FFT on the first frames.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <vector>
#include <time.h>
#include <cuda_runtime.h>
#include <cufft.h>

#include "bench-dft.h"

#define CHECK_FRAMES 8
#define WARMUP_S 0.3
#define TRIALS 5

static double
now_s (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// Uniform noise on [-1, 1), the same generator as bench_noise_fill() on
// chunks of CHUNK samples (seed n), so the host can recompute any frame.
static const size_t CHUNK = (size_t) 4 << 20;

static bool
cuda_ok (cudaError_t e, const char *what)
{
  if (e != cudaSuccess) {
    printf ("%s: %s\n", what, cudaGetErrorString (e));
    return false;
  }
  return true;
}

static bool
cufft_ok (cufftResult r, const char *what)
{
  if (r != CUFFT_SUCCESS) {
    printf ("%s: cufftResult %d\n", what, (int) r);
    return false;
  }
  return true;
}

static void
usage (void)
{
  printf ("usage: bench-cufft [--small] [--mib MIB] [--repeats R] "
      "[--sizes N,N,...]\n");
}

int
main (int argc, char **argv)
{
  std::vector<unsigned> sizes = { 1024, 4096, 8192, 16384, 32768, 65536 };
  double mib = 1024.0;
  int repeats = 50;

  for (int i = 1; i < argc; i++) {
    if (!strcmp (argv[i], "--small")) {
      mib = 8.0;
      repeats = 2;
    } else if (!strcmp (argv[i], "--mib") && i + 1 < argc) {
      mib = atof (argv[++i]);
    } else if (!strncmp (argv[i], "--mib=", 6)) {
      mib = atof (argv[i] + 6);
    } else if (!strcmp (argv[i], "--repeats") && i + 1 < argc) {
      repeats = atoi (argv[++i]);
    } else if (!strncmp (argv[i], "--repeats=", 10)) {
      repeats = atoi (argv[i] + 10);
    } else if (!strcmp (argv[i], "--sizes") || !strncmp (argv[i], "--sizes=",
            8)) {
      const char *s = argv[i][7] == '=' ? argv[i] + 8 : (i + 1 < argc ?
          argv[++i] : "");
      sizes.clear ();
      while (*s) {
        sizes.push_back ((unsigned) strtoul (s, (char **) &s, 10));
        if (*s == ',')
          s++;
        else if (*s)
          break;
      }
    } else {
      usage ();
      return 2;
    }
  }
  if (repeats < 1)
    repeats = 1;

  cudaDeviceProp prop;
  int dev = 0, ver_rt = 0, ver_fft = 0;
  if (!cuda_ok (cudaGetDevice (&dev), "cudaGetDevice")
      || !cuda_ok (cudaGetDeviceProperties (&prop, dev),
          "cudaGetDeviceProperties"))
    return 1;
  cudaRuntimeGetVersion (&ver_rt);
  cufftGetVersion (&ver_fft);

  printf ("== cuFFT: batched R2C, FFT only, out of place ==\n");
  printf ("device: %s; CUDA runtime %d, cuFFT %d; runs of %d repeats for "
      "0.3 s, then the median of 5 timed; "
      "GB/s(4) = frames*(4N+4(N/2+1))/t like ours, GB/s(8) = "
      "frames*(4N+8(N/2+1))/t as moved; rel L2 vs double on the first and "
      "last %d frames\n",
      prop.name, ver_rt, ver_fft, repeats, CHECK_FRAMES / 2);
  printf ("%6s %8s %8s | %9s %9s %9s %9s | %9s\n", "N", "frames", "in MiB",
      "GPU ms", "Gsamp/s", "GB/s(4)", "GB/s(8)", "rel L2");

  int rc = 0;
  for (unsigned n : sizes) {
    size_t frames = (size_t) (mib * 1048576.0 / (4.0 * n));
    if (frames < 1)
      frames = 1;
    size_t nb = n / 2 + 1, total = frames * n;
    size_t chunk_len = total < CHUNK ? total : CHUNK;
    float *d_in = NULL;
    cufftComplex *d_out = NULL;
    cufftHandle plan = 0;
    cudaEvent_t e0 = NULL, e1 = NULL;
    float ms = 0.0f;
    std::vector<float> chunk (chunk_len);
    bool ok = false;

    bench_noise_fill (chunk.data (), chunk_len, n);
    do {
      if (!cuda_ok (cudaMalloc (&d_in, total * sizeof (float)), "cudaMalloc in")
          || !cuda_ok (cudaMalloc (&d_out, frames * nb * sizeof (cufftComplex)),
              "cudaMalloc out"))
        break;
      bool copied = true;
      for (size_t off = 0; off < total && copied; off += chunk_len) {
        size_t len = total - off < chunk_len ? total - off : chunk_len;
        copied = cuda_ok (cudaMemcpy (d_in + off, chunk.data (),
                len * sizeof (float), cudaMemcpyHostToDevice), "cudaMemcpy");
      }
      if (!copied)
        break;
      int nn[1] = { (int) n };
      int inembed[1] = { (int) n }, onembed[1] = { (int) nb };
      if (!cufft_ok (cufftPlanMany (&plan, 1, nn, inembed, 1, (int) n,
                  onembed, 1, (int) nb, CUFFT_R2C, (int) frames),
              "cufftPlanMany"))
        break;
      if (!cufft_ok (cufftExecR2C (plan, d_in, d_out), "warm-up")
          || !cuda_ok (cudaDeviceSynchronize (), "sync"))
        break;
      cudaEventCreate (&e0);
      cudaEventCreate (&e1);
      // runs of `repeats` for WARMUP_S (the GPU's clock up, as
      // bench-kernel), then TRIALS timed runs: the median
      bool run = true;
      double t_start = now_s (), trial_ms[TRIALS];
      int done = 0;
      while (run && done < TRIALS) {
        bool warm = now_s () - t_start >= WARMUP_S;
        cudaEventRecord (e0);
        for (int r = 0; r < repeats && run; r++)
          run = cufft_ok (cufftExecR2C (plan, d_in, d_out), "cufftExecR2C");
        cudaEventRecord (e1);
        if (!run || !cuda_ok (cudaEventSynchronize (e1), "sync")) {
          run = false;
          break;
        }
        cudaEventElapsedTime (&ms, e0, e1);
        if (warm)
          trial_ms[done++] = ms;
      }
      if (!run)
        break;
      std::sort (trial_ms, trial_ms + TRIALS);
      ms = (float) trial_ms[TRIALS / 2];
      ok = true;
    } while (0);

    double err = NAN;
    if (ok) {
      // error of the first and last CHECK_FRAMES/2 frames (frame i starts
      // at sample (i*n) % chunk_len of the chunk)
      size_t nf = frames < CHECK_FRAMES ? frames : CHECK_FRAMES;
      std::vector<float> got (nb * 2);
      std::vector<double> re (nb), im (nb);
      BenchL2 e = { 0, 0 };
      bool read = true;
      for (size_t k = 0; k < nf && read; k++) {
        size_t i = frames <= CHECK_FRAMES || k < CHECK_FRAMES / 2 ? k :
            frames - CHECK_FRAMES + k;
        const float *x = chunk.data () + (i * n) % chunk_len;
        read = cuda_ok (cudaMemcpy (got.data (), d_out + i * nb,
                nb * sizeof (cufftComplex), cudaMemcpyDeviceToHost), "readback")
            && bench_rfft_double (x, NULL, n, re.data (), im.data ()) == 0;
        if (read)
          bench_l2_add_complex (&e, got.data (), re.data (), im.data (),
              (unsigned) nb);
      }
      if (read)
        err = bench_l2_result (&e);
      double t = ms * 1e6 / repeats;    // ns per call
      double f4 = (4.0 * n + 4.0 * nb) * frames;
      double f8 = (4.0 * n + 8.0 * nb) * frames;
      printf ("%6u %8zu %8.1f | %9.3f %9.4g %9.4g %9.4g | %9.2e\n", n, frames,
          total * 4.0 / 1048576.0, t * 1e-6, (double) total / t, f4 / t,
          f8 / t, err);
      printf ("@cufft n=%u frames=%zu repeats=%d gpu_ns=%.0f rel_l2=%.3e\n",
          n, frames, repeats, t, err);
    } else {
      printf ("%6u failed\n", n);
      rc = 1;
    }
    fflush (stdout);
    if (e0)
      cudaEventDestroy (e0);
    if (e1)
      cudaEventDestroy (e1);
    if (plan)
      cufftDestroy (plan);
    cudaFree (d_in);
    cudaFree (d_out);
  }
  return rc;
}
