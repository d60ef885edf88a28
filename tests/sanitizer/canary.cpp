// A program with one deliberate bug of each kind the asan preset must catch. The tests in
// CMakeLists.txt expect each report, so a sanitizer that is off or silently disabled (LeakSanitizer
// cannot run under ptrace, for one) fails the suite instead of letting every other test pass
// unchecked.
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s leak|heap-overflow|signed-overflow\n", argv[0]);
        return 2;
    }
    volatile int index = argc + 14; // 16, unknown to the optimiser
    if (std::strcmp(argv[1], "leak") == 0) {
        void* lost = std::malloc(4096);
        std::memset(lost, 1, 4096);
        lost = nullptr;
        return 0;
    }
    if (std::strcmp(argv[1], "heap-overflow") == 0) {
        char* buffer = new char[16];
        buffer[index] = 1;
        delete[] buffer;
        return 0;
    }
    if (std::strcmp(argv[1], "signed-overflow") == 0) {
        int value = INT_MAX - 14;
        value += index;
        std::printf("%d\n", value);
        return 0;
    }
    return 2;
}
