// Stand-in for the GPU tests in builds without the CUDA backend: always skipped.
#include <cstdio>

int main() {
    std::printf("skip: this build has no CUDA backend\n");
    return 77;
}
