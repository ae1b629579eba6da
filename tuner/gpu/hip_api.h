#pragma once
// THE vendor mapping: the only file in moetune that knows which GPU SDK it is built against.
// Everything else in tuner/gpu and tuner/rtc is written against the HIP names used below
// (the model is llama.cpp's ggml-cuda/vendors/hip.h, in reverse).
//
//   MOETUNE_GPU_HIP   real HIP runtime + hipRTC (ROCm 6+ on users' hosts, HIP 5.2 in Debian CI).
//   MOETUNE_GPU_CUDA  the HIP names mapped onto the CUDA runtime + NVRTC. Debian's HIP-on-NVIDIA
//                     headers do not compile against CUDA 12/13, hence our own mapping. Code objects
//                     are loaded with the CUDA 12+ runtime library API (cudaLibrary*), never the
//                     driver API: cudart_static opens libcuda.so.1 lazily, so the binary starts on
//                     hosts without a driver and the first call reports the missing driver.
//   MOETUNE_GPU_NONE  no SDK: every call fails with hipErrorNoDevice, so all GPU code still builds
//                     and GPU commands report "built without GPU support" at run time.
//
// Only the calls moetune uses are mapped; add a name here before using it anywhere else.
// Public headers of tuner/gpu do not include this file (handles are opaque there), so code outside
// tuner/gpu and tuner/rtc never sees an SDK.
#include <cstddef>
#include <string>
#include <vector>

#if defined(MOETUNE_GPU_HIP)
// ----------------------------------------------------------------------------------------- AMD
#include <hip/hip_runtime_api.h>
#include <hip/hiprtc.h>

// gcnArchName is "gfx950:sramecc+:xnack-": the features matter to the compiler, the AITER gfx
// column holds only the processor name.
inline std::string moetune_hip_compile_arch(const hipDeviceProp_t& p) { return p.gcnArchName; }
inline std::string moetune_hip_table_arch(const hipDeviceProp_t& p) {
    std::string arch = p.gcnArchName;
    return arch.substr(0, arch.find(':'));
}
// AMD has no opt-in step: a block may use all of the CU's LDS.
inline std::size_t moetune_hip_shared_mem_optin(const hipDeviceProp_t& p) { return p.sharedMemPerBlock; }
// wall_clock64 reads s_memrealtime, a constant 100 MHz on gfx9 (the CDNA ISA guides); HIP 5.2 has no attribute for it.
inline int moetune_hip_wall_clock_khz(const hipDeviceProp_t&) { return 100000; }
inline hipError_t moetune_hip_set_max_dynamic_shared(hipFunction_t, int) { return hipSuccess; }
inline hipError_t moetune_hip_resident_blocks(int* blocks, hipFunction_t f, int block_threads, std::size_t shared_bytes) {
    return hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(blocks, f, block_threads, shared_bytes);
}
// AMD has no programmatic dependent launch: an ordinary launch, which waits for the previous kernel.
inline hipError_t moetune_hip_launch_overlapping(hipFunction_t f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                                 unsigned by, unsigned bz, unsigned shared_bytes, hipStream_t stream,
                                                 void** params) {
    return hipModuleLaunchKernel(f, gx, gy, gz, bx, by, bz, shared_bytes, stream, params, nullptr);
}

inline const char* moetune_rtc_compiler_name() { return "hiprtc"; }
inline std::vector<std::string> moetune_rtc_target_options(const std::string& arch) {
    return {"--gpu-architecture=" + arch, "-std=c++17"};
}
// Bit-exact kernels (quantization, synthetic data) must not contract a*b+c into an FMA, or they
// would differ from the CPU code compiled with -ffp-contract=off (g++'s ISO C++ default).
inline const char* moetune_rtc_no_fma_option() { return "-ffp-contract=off"; }

#elif defined(MOETUNE_GPU_CUDA)
// -------------------------------------------------------------------------------------- NVIDIA
#include <cuda_runtime_api.h>
#include <nvrtc.h>

#define hipError_t cudaError_t
#define hipSuccess cudaSuccess
#define hipErrorNoDevice cudaErrorNoDevice
#define hipErrorInsufficientDriver cudaErrorInsufficientDriver
#define hipGetErrorName cudaGetErrorName
#define hipGetErrorString cudaGetErrorString

#define hipDeviceProp_t cudaDeviceProp
#define hipGetDeviceCount cudaGetDeviceCount
#define hipGetDeviceProperties cudaGetDeviceProperties
#define hipSetDevice cudaSetDevice
#define hipGetDevice cudaGetDevice

#define hipMalloc cudaMalloc
#define hipFree cudaFree
#define hipMemcpy cudaMemcpy
#define hipMemcpyHostToDevice cudaMemcpyHostToDevice
#define hipMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define hipMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define hipMemcpyAsync cudaMemcpyAsync
#define hipMemset cudaMemset
#define hipMemsetAsync cudaMemsetAsync

#define hipStream_t cudaStream_t
#define hipStreamCreate cudaStreamCreate
#define hipStreamDestroy cudaStreamDestroy
#define hipStreamSynchronize cudaStreamSynchronize
#define hipStreamWaitEvent cudaStreamWaitEvent

#define hipEvent_t cudaEvent_t
#define hipEventCreate cudaEventCreate
#define hipEventCreateWithFlags cudaEventCreateWithFlags
#define hipEventDisableTiming cudaEventDisableTiming
#define hipEventDestroy cudaEventDestroy
#define hipEventRecord cudaEventRecord
#define hipEventSynchronize cudaEventSynchronize
#define hipEventElapsedTime cudaEventElapsedTime

#define hipGraph_t cudaGraph_t
#define hipGraphExec_t cudaGraphExec_t
#define hipStreamBeginCapture cudaStreamBeginCapture
#define hipStreamCaptureModeThreadLocal cudaStreamCaptureModeThreadLocal
#define hipStreamEndCapture cudaStreamEndCapture
#define hipGraphLaunch cudaGraphLaunch
#define hipGraphExecDestroy cudaGraphExecDestroy
#define hipGraphDestroy cudaGraphDestroy

// A HIP module is a CUDA library, a HIP function a CUDA kernel handle.
#define hipModule_t cudaLibrary_t
#define hipFunction_t cudaKernel_t

// HIP keeps the pre-CUDA-12 signature with an error node and a log buffer; CUDA 12+ takes flags.
inline cudaError_t hipGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, cudaGraphNode_t*, char*, std::size_t) {
    return cudaGraphInstantiate(exec, graph, 0);
}
inline cudaError_t hipModuleLoadData(cudaLibrary_t* module, const void* image) {
    return cudaLibraryLoadData(module, image, nullptr, nullptr, 0, nullptr, nullptr, 0);
}
inline cudaError_t hipModuleGetFunction(cudaKernel_t* function, cudaLibrary_t module, const char* name) {
    return cudaLibraryGetKernel(function, module, name);
}
inline cudaError_t hipModuleUnload(cudaLibrary_t module) { return cudaLibraryUnload(module); }
// cudaLaunchKernel accepts a cudaKernel_t in place of a function symbol (CUDA 12+). HIP's `extra`
// argument (packed parameter buffer) has no runtime-API equivalent; moetune always passes nullptr.
inline cudaError_t hipModuleLaunchKernel(cudaKernel_t f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                         unsigned by, unsigned bz, unsigned shared_bytes, cudaStream_t stream,
                                         void** params, void** extra) {
    if (extra != nullptr) return cudaErrorInvalidValue;
    return cudaLaunchKernel(reinterpret_cast<const void*>(f), dim3(gx, gy, gz), dim3(bx, by, bz), params, shared_bytes,
                            stream);
}

// Programmatic dependent launch (sm_90+): the kernel may start once every workgroup of the stream's
// previous kernel has started or called griddepcontrol.launch_dependents; it must execute
// griddepcontrol.wait before reading what that kernel writes (kernel_templates/common/grid_dependency.h).
// Captured into a graph as a programmatic edge.
inline cudaError_t moetune_hip_launch_overlapping(cudaKernel_t f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                                  unsigned by, unsigned bz, unsigned shared_bytes, cudaStream_t stream,
                                                  void** params) {
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(gx, gy, gz);
    config.blockDim = dim3(bx, by, bz);
    config.dynamicSmemBytes = shared_bytes;
    config.stream = stream;
    config.attrs = &attribute;
    config.numAttrs = 1;
    return cudaLaunchKernelExC(&config, reinterpret_cast<const void*>(f), params);
}

// Kernels are compiled for the arch-specific target (sm_90a, sm_100a, ...) so wgmma and friends are
// available; that cubin runs only on that exact compute capability, which is what we want. The AITER
// gfx column gets the plain "sm_90".
inline std::string moetune_hip_table_arch(const cudaDeviceProp& p) {
    return "sm_" + std::to_string(p.major) + std::to_string(p.minor);
}
inline std::string moetune_hip_compile_arch(const cudaDeviceProp& p) {
    return moetune_hip_table_arch(p) + (p.major >= 9 ? "a" : "");
}
inline std::size_t moetune_hip_shared_mem_optin(const cudaDeviceProp& p) { return p.sharedMemPerBlockOptin; }
// The kernels' wall clock on NVIDIA is %globaltimer, which counts nanoseconds.
inline int moetune_hip_wall_clock_khz(const cudaDeviceProp&) { return 1000000; }
// More than 48 KB of dynamic shared memory needs an explicit opt-in per kernel on NVIDIA.
inline cudaError_t moetune_hip_set_max_dynamic_shared(cudaKernel_t f, int bytes) {
    return cudaFuncSetAttribute(reinterpret_cast<const void*>(f), cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
}
inline cudaError_t moetune_hip_resident_blocks(int* blocks, cudaKernel_t f, int block_threads, std::size_t shared_bytes) {
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, reinterpret_cast<const void*>(f), block_threads,
                                                         shared_bytes);
}

#define hiprtcResult nvrtcResult
#define HIPRTC_SUCCESS NVRTC_SUCCESS
#define hiprtcProgram nvrtcProgram
#define hiprtcGetErrorString nvrtcGetErrorString
#define hiprtcVersion nvrtcVersion
#define hiprtcCreateProgram nvrtcCreateProgram
#define hiprtcDestroyProgram nvrtcDestroyProgram
#define hiprtcAddNameExpression nvrtcAddNameExpression
#define hiprtcCompileProgram nvrtcCompileProgram
#define hiprtcGetLoweredName nvrtcGetLoweredName
#define hiprtcGetProgramLogSize nvrtcGetProgramLogSize
#define hiprtcGetProgramLog nvrtcGetProgramLog
// The code object is a cubin for the real arch (not PTX): no JIT at load time, no driver compiler.
#define hiprtcGetCodeSize nvrtcGetCUBINSize
#define hiprtcGetCode nvrtcGetCUBIN

inline const char* moetune_rtc_compiler_name() { return "nvrtc"; }
// -default-device: kernel templates are written HIP-style without __device__ on every helper.
// The CUDA include dir provides cuda_fp8.h / cuda_bf16.h to kernels that want them.
inline std::vector<std::string> moetune_rtc_target_options(const std::string& arch) {
    return {"--gpu-architecture=" + arch, "-default-device", "-std=c++17",
            std::string("-I") + MOETUNE_CUDA_INCLUDE_DIR};
}
inline const char* moetune_rtc_no_fma_option() { return "--fmad=false"; }

#elif defined(MOETUNE_GPU_NONE)
// ---------------------------------------------------------------------------------------- none
namespace moetune::gpu::none {
struct Handle;
struct DeviceProp {
    char name[256];
    int multiProcessorCount, regsPerBlock, l2CacheSize;
    std::size_t totalGlobalMem;
};
enum Error { kSuccess = 0, kNoDevice = 100, kInsufficientDriver = 35 };
// Every SDK call lands here and fails; the arguments are never touched.
template <class... Args>
constexpr Error unavailable(Args&&...) {
    return kNoDevice;
}
inline const char* error_string(Error) { return "moetune was built without GPU support (MOETUNE_GPU=none)"; }
}  // namespace moetune::gpu::none

#define hipError_t ::moetune::gpu::none::Error
#define hipSuccess ::moetune::gpu::none::kSuccess
#define hipErrorNoDevice ::moetune::gpu::none::kNoDevice
#define hipErrorInsufficientDriver ::moetune::gpu::none::kInsufficientDriver
#define hipGetErrorName ::moetune::gpu::none::error_string
#define hipGetErrorString ::moetune::gpu::none::error_string
#define hipDeviceProp_t ::moetune::gpu::none::DeviceProp
#define hipStream_t ::moetune::gpu::none::Handle*
#define hipEvent_t ::moetune::gpu::none::Handle*
#define hipGraph_t ::moetune::gpu::none::Handle*
#define hipGraphExec_t ::moetune::gpu::none::Handle*
#define hipModule_t ::moetune::gpu::none::Handle*
#define hipFunction_t ::moetune::gpu::none::Handle*
#define hipMemcpyHostToDevice 1
#define hipMemcpyDeviceToHost 2
#define hipStreamCaptureModeThreadLocal 1
#define hipGetDeviceCount ::moetune::gpu::none::unavailable
#define hipGetDeviceProperties ::moetune::gpu::none::unavailable
#define hipSetDevice ::moetune::gpu::none::unavailable
#define hipGetDevice ::moetune::gpu::none::unavailable
#define hipMalloc ::moetune::gpu::none::unavailable
#define hipFree ::moetune::gpu::none::unavailable
#define hipMemcpy ::moetune::gpu::none::unavailable
#define hipMemset ::moetune::gpu::none::unavailable
#define hipMemsetAsync ::moetune::gpu::none::unavailable
#define hipStreamCreate ::moetune::gpu::none::unavailable
#define hipStreamDestroy ::moetune::gpu::none::unavailable
#define hipStreamSynchronize ::moetune::gpu::none::unavailable
#define hipEventCreate ::moetune::gpu::none::unavailable
#define hipEventDestroy ::moetune::gpu::none::unavailable
#define hipEventRecord ::moetune::gpu::none::unavailable
#define hipEventSynchronize ::moetune::gpu::none::unavailable
#define hipEventElapsedTime ::moetune::gpu::none::unavailable
#define hipStreamBeginCapture ::moetune::gpu::none::unavailable
#define hipStreamEndCapture ::moetune::gpu::none::unavailable
#define hipGraphInstantiate ::moetune::gpu::none::unavailable
#define hipGraphLaunch ::moetune::gpu::none::unavailable
#define hipGraphExecDestroy ::moetune::gpu::none::unavailable
#define hipGraphDestroy ::moetune::gpu::none::unavailable
#define hipModuleLoadData ::moetune::gpu::none::unavailable
#define hipModuleGetFunction ::moetune::gpu::none::unavailable
#define hipModuleUnload ::moetune::gpu::none::unavailable
#define hipModuleLaunchKernel ::moetune::gpu::none::unavailable
#define moetune_hip_set_max_dynamic_shared ::moetune::gpu::none::unavailable
#define moetune_hip_launch_overlapping ::moetune::gpu::none::unavailable
#define moetune_hip_resident_blocks ::moetune::gpu::none::unavailable
inline std::string moetune_hip_compile_arch(const hipDeviceProp_t&) { return {}; }
inline std::string moetune_hip_table_arch(const hipDeviceProp_t&) { return {}; }
inline std::size_t moetune_hip_shared_mem_optin(const hipDeviceProp_t&) { return 0; }
inline int moetune_hip_wall_clock_khz(const hipDeviceProp_t&) { return 0; }

#define hiprtcResult ::moetune::gpu::none::Error
#define HIPRTC_SUCCESS ::moetune::gpu::none::kSuccess
#define hiprtcProgram ::moetune::gpu::none::Handle*
#define hiprtcGetErrorString ::moetune::gpu::none::error_string
#define hiprtcVersion ::moetune::gpu::none::unavailable
#define hiprtcCreateProgram ::moetune::gpu::none::unavailable
#define hiprtcDestroyProgram ::moetune::gpu::none::unavailable
#define hiprtcAddNameExpression ::moetune::gpu::none::unavailable
#define hiprtcCompileProgram ::moetune::gpu::none::unavailable
#define hiprtcGetLoweredName ::moetune::gpu::none::unavailable
#define hiprtcGetProgramLogSize ::moetune::gpu::none::unavailable
#define hiprtcGetProgramLog ::moetune::gpu::none::unavailable
#define hiprtcGetCodeSize ::moetune::gpu::none::unavailable
#define hiprtcGetCode ::moetune::gpu::none::unavailable
inline const char* moetune_rtc_compiler_name() { return "none"; }
inline std::vector<std::string> moetune_rtc_target_options(const std::string&) { return {}; }
inline const char* moetune_rtc_no_fma_option() { return ""; }

#else
#error "the build must define one of MOETUNE_GPU_HIP, MOETUNE_GPU_CUDA, MOETUNE_GPU_NONE (link moetune_gpu_sdk)"
#endif
