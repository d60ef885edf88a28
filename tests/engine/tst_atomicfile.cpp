// What the engine's writer may replace (docs/reliability.md, "Writing files"): regular files
// and new names atomically; FIFOs and character devices written through, never replaced; links
// followed; read-only files, directories, block devices and sockets refused. Special files are
// made with mknod/mkfifo in a temporary folder, never in the machine's /dev.
#include "slicescope/trace/atomicfile.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

namespace slicescope::trace {
namespace {

namespace fs = std::filesystem;

class AtomicFile : public testing::Test {
  protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() /
               ("tst_atomicfile-" + std::to_string(::getpid()) + "-" +
                testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    static Status writeText(const fs::path& path, const std::string& text) {
        return writeFileAtomically(path, [&text](std::ostream& out) { out << text; });
    }
    static std::string readText(const fs::path& path) {
        std::ifstream in(path, std::ios::binary);
        std::ostringstream text;
        text << in.rdbuf();
        return text.str();
    }
    static void put(const fs::path& path, const std::string& text, mode_t mode) {
        std::ofstream(path, std::ios::binary) << text;
        ASSERT_EQ(::chmod(path.c_str(), mode), 0);
    }
    static struct stat lstatOf(const fs::path& path) {
        struct stat st {};
        EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
        return st;
    }
    // Names in the folder: a refused or failed write leaves no temporary file behind.
    std::size_t entries() const {
        return std::size_t(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()));
    }
    // A character device like /dev/null (1,3), or nothing when mknod is not permitted here.
    bool makeNullDevice(const fs::path& path) {
        if (::mknod(path.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) {
            skipReason_ = std::string("mknod is not permitted here: ") + std::strerror(errno);
            return false;
        }
        // On a file system mounted nodev the node exists but cannot be opened.
        const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
        if (fd < 0) {
            skipReason_ = std::string("device nodes cannot be opened in ") +
                          path.parent_path().string() +
                          " (mounted nodev?): " + std::strerror(errno);
            return false;
        }
        ::close(fd);
        return true;
    }

    fs::path dir_;
    std::string skipReason_;
};

TEST_F(AtomicFile, ANewFileGetsTheUmasksMode) {
    const mode_t saved = ::umask(027);
    const Status written = writeText(dir_ / "new.json", "new");
    ::umask(saved);
    ASSERT_TRUE(written) << written.error().message;
    EXPECT_EQ(readText(dir_ / "new.json"), "new");
    EXPECT_EQ(lstatOf(dir_ / "new.json").st_mode & 07777, 0640u);
    EXPECT_EQ(entries(), 1u);
}

TEST_F(AtomicFile, ARegularFileIsReplacedAndKeepsItsMode) {
    put(dir_ / "t.json", "old", 0604);
    const ino_t before = lstatOf(dir_ / "t.json").st_ino;
    const Status written = writeText(dir_ / "t.json", "new");
    ASSERT_TRUE(written) << written.error().message;
    EXPECT_EQ(readText(dir_ / "t.json"), "new");
    const struct stat after = lstatOf(dir_ / "t.json");
    EXPECT_EQ(after.st_mode & 07777, 0604u);
    EXPECT_NE(after.st_ino, before) << "replaced by rename, not rewritten in place";
    EXPECT_EQ(entries(), 1u);
}

TEST_F(AtomicFile, AReplacedFileKeepsItsOwnerWhenRootWritesIt) {
    if (::geteuid() != 0) {
        GTEST_SKIP() << "needs root to give the file another owner";
    }
    put(dir_ / "t.json", "old", 0644);
    ASSERT_EQ(::chown((dir_ / "t.json").c_str(), 4242, 4343), 0);
    ASSERT_TRUE(writeText(dir_ / "t.json", "new"));
    const struct stat after = lstatOf(dir_ / "t.json");
    EXPECT_EQ(after.st_uid, 4242u);
    EXPECT_EQ(after.st_gid, 4343u);
    EXPECT_EQ(after.st_mode & 07777, 0644u);
}

TEST_F(AtomicFile, ALinkIsFollowedAndItsTargetReplaced) {
    fs::create_directories(dir_ / "real");
    put(dir_ / "real" / "t.json", "old", 0644);
    fs::create_symlink("real/t.json", dir_ / "middle");
    fs::create_symlink(dir_ / "middle", dir_ / "link"); // a chain: absolute, then relative
    const Status written = writeText(dir_ / "link", "new");
    ASSERT_TRUE(written) << written.error().message;
    EXPECT_TRUE(S_ISLNK(lstatOf(dir_ / "link").st_mode));
    EXPECT_TRUE(S_ISLNK(lstatOf(dir_ / "middle").st_mode));
    EXPECT_EQ(readText(dir_ / "real" / "t.json"), "new");
    EXPECT_EQ(entries(), 3u);
    EXPECT_EQ(std::distance(fs::directory_iterator(dir_ / "real"), fs::directory_iterator()), 1);
}

TEST_F(AtomicFile, ALinkToANameNotYetThereCreatesIt) {
    fs::create_symlink("made.json", dir_ / "link");
    const Status written = writeText(dir_ / "link", "new");
    ASSERT_TRUE(written) << written.error().message;
    EXPECT_TRUE(S_ISLNK(lstatOf(dir_ / "link").st_mode));
    EXPECT_EQ(readText(dir_ / "made.json"), "new");
}

TEST_F(AtomicFile, ALinkOfAnotherUserInASharedStickyFolderIsNotFollowed) {
    if (::geteuid() != 0) {
        GTEST_SKIP() << "needs root to give a link another owner";
    }
    // Like /tmp: anyone may create names, the sticky bit keeps them their creator's.
    fs::create_directories(dir_ / "shared");
    ASSERT_EQ(::chmod((dir_ / "shared").c_str(), 01777), 0);
    put(dir_ / "victim.json", "old", 0644);
    fs::create_symlink(dir_ / "victim.json", dir_ / "shared" / "planted");
    ASSERT_EQ(::lchown((dir_ / "shared" / "planted").c_str(), 4242, 4242), 0);
    const Status written = writeText(dir_ / "shared" / "planted", "new");
    ASSERT_FALSE(written); // refused here, or by the kernel's own protected_symlinks
    EXPECT_EQ(written.error().code, Error::Code::Io);
    EXPECT_EQ(readText(dir_ / "victim.json"), "old");
    EXPECT_TRUE(S_ISLNK(lstatOf(dir_ / "shared" / "planted").st_mode));
    // The writer's own link there is followed.
    fs::create_symlink(dir_ / "victim.json", dir_ / "shared" / "mine");
    const Status own = writeText(dir_ / "shared" / "mine", "new");
    ASSERT_TRUE(own) << own.error().message;
    EXPECT_EQ(readText(dir_ / "victim.json"), "new");
}

TEST_F(AtomicFile, AReadOnlyFileIsRefusedEvenForRoot) {
    put(dir_ / "t.json", "old", 0444);
    fs::create_symlink("t.json", dir_ / "link");
    for (const fs::path& path : {dir_ / "t.json", dir_ / "link"}) {
        const Status written = writeText(path, "new");
        ASSERT_FALSE(written) << path;
        EXPECT_EQ(written.error().code, Error::Code::Io);
        EXPECT_NE(written.error().message.find("cannot write " + path.string() +
                                               ": it is read-only (mode 0444)"),
                  std::string::npos)
            << written.error().message;
    }
    EXPECT_EQ(readText(dir_ / "t.json"), "old");
    EXPECT_EQ(lstatOf(dir_ / "t.json").st_mode & 07777, 0444u);
    EXPECT_EQ(entries(), 2u);
}

TEST_F(AtomicFile, ADirectoryIsRefused) {
    fs::create_directories(dir_ / "sub");
    const Status written = writeText(dir_ / "sub", "new");
    ASSERT_FALSE(written);
    EXPECT_NE(written.error().message.find("it is a directory"), std::string::npos)
        << written.error().message;
    EXPECT_TRUE(fs::is_directory(dir_ / "sub"));
}

TEST_F(AtomicFile, AMissingFolderIsRefused) {
    const Status written = writeText(dir_ / "missing" / "t.json", "new");
    ASSERT_FALSE(written);
    EXPECT_NE(written.error().message.find("No such file or directory"), std::string::npos)
        << written.error().message;
}

TEST_F(AtomicFile, ACharacterDeviceIsWrittenToNotReplaced) {
    if (!makeNullDevice(dir_ / "null")) {
        GTEST_SKIP() << skipReason_;
    }
    fs::create_symlink("null", dir_ / "link");
    for (const fs::path& path : {dir_ / "null", dir_ / "link"}) {
        auto target = resolveOutput(path);
        ASSERT_TRUE(target) << target.error().message;
        EXPECT_EQ(target->kind, OutputKind::WriteThrough);
        const Status written = writeText(path, "new");
        ASSERT_TRUE(written) << written.error().message;
    }
    EXPECT_TRUE(S_ISCHR(lstatOf(dir_ / "null").st_mode));
    EXPECT_EQ(lstatOf(dir_ / "null").st_rdev, makedev(1, 3));
    EXPECT_TRUE(S_ISLNK(lstatOf(dir_ / "link").st_mode));
    EXPECT_EQ(entries(), 2u);
}

TEST_F(AtomicFile, ABlockDeviceAndASocketAreRefused) {
    const fs::path socketPath = dir_ / "socket";
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    ASSERT_LT(socketPath.string().size(), sizeof address.sun_path);
    std::strcpy(address.sun_path, socketPath.c_str());
    ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    const Status toSocket = writeText(socketPath, "new");
    ::close(fd);
    ASSERT_FALSE(toSocket);
    EXPECT_NE(toSocket.error().message.find("it is a socket"), std::string::npos)
        << toSocket.error().message;
    EXPECT_TRUE(S_ISSOCK(lstatOf(socketPath).st_mode));

    // A loop device's number; the node is only looked at, never opened.
    if (::mknod((dir_ / "block").c_str(), S_IFBLK | 0600, makedev(7, 0)) != 0) {
        GTEST_SKIP() << "mknod is not permitted here: " << std::strerror(errno);
    }
    const Status toBlock = writeText(dir_ / "block", "new");
    ASSERT_FALSE(toBlock);
    EXPECT_NE(toBlock.error().message.find("it is a block device"), std::string::npos)
        << toBlock.error().message;
    EXPECT_TRUE(S_ISBLK(lstatOf(dir_ / "block").st_mode));
}

TEST_F(AtomicFile, AFifoIsWrittenThroughToItsReader) {
    ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0600), 0);
    // The reader's end opens at once with O_NONBLOCK; what is written fits the pipe's buffer.
    const int reader = ::open((dir_ / "fifo").c_str(), O_RDONLY | O_NONBLOCK);
    ASSERT_GE(reader, 0);
    const Status written = writeText(dir_ / "fifo", "through the fifo");
    std::string got(64, '\0');
    const ssize_t n = ::read(reader, got.data(), got.size());
    ::close(reader);
    ASSERT_TRUE(written) << written.error().message;
    ASSERT_GT(n, 0);
    got.resize(std::size_t(n));
    EXPECT_EQ(got, "through the fifo");
    EXPECT_TRUE(S_ISFIFO(lstatOf(dir_ / "fifo").st_mode));
    EXPECT_EQ(entries(), 1u);
}

TEST_F(AtomicFile, AFifoWithoutAReaderIsRefusedNotWaitedOn) {
    ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0600), 0);
    const Status written = writeText(dir_ / "fifo", "nobody reads this");
    ASSERT_FALSE(written);
    EXPECT_NE(written.error().message.find("it is a FIFO that no process is reading"),
              std::string::npos)
        << written.error().message;
    EXPECT_TRUE(S_ISFIFO(lstatOf(dir_ / "fifo").st_mode));
    EXPECT_EQ(entries(), 1u);
}

TEST_F(AtomicFile, ResolveSaysHowEachTargetIsWritten) {
    put(dir_ / "t.json", "old", 0644);
    fs::create_symlink("t.json", dir_ / "link");
    auto replaced = resolveOutput(dir_ / "link");
    ASSERT_TRUE(replaced) << replaced.error().message;
    EXPECT_EQ(replaced->kind, OutputKind::ReplaceFile);
    EXPECT_TRUE(fs::equivalent(replaced->path, dir_ / "t.json")) << replaced->path;
    EXPECT_FALSE(S_ISLNK(lstatOf(replaced->path).st_mode));
    EXPECT_EQ(replaced->mode, 0644u);
    auto created = resolveOutput(dir_ / "new.json");
    ASSERT_TRUE(created) << created.error().message;
    EXPECT_EQ(created->kind, OutputKind::NewFile);
    EXPECT_FALSE(resolveOutput(""));
    EXPECT_FALSE(resolveOutput(dir_ / ""));
    EXPECT_EQ(entries(), 2u); // resolving creates nothing
}

TEST_F(AtomicFile, SameFileComparesFilesNotStrings) {
    put(dir_ / "a.json", "a", 0644);
    put(dir_ / "b.json", "b", 0644);
    fs::create_hard_link(dir_ / "a.json", dir_ / "hard");
    fs::create_symlink("a.json", dir_ / "soft");
    fs::create_directories(dir_ / "sub");
    EXPECT_TRUE(sameFile(dir_ / "a.json", dir_ / "a.json"));
    EXPECT_TRUE(sameFile(dir_ / "a.json", dir_ / "sub" / ".." / "." / "a.json"));
    EXPECT_TRUE(sameFile(dir_ / "a.json", dir_ / "hard"));
    EXPECT_TRUE(sameFile(dir_ / "soft", dir_ / "a.json"));
    EXPECT_FALSE(sameFile(dir_ / "a.json", dir_ / "b.json"));
    // Names not yet there: the same place, or not.
    EXPECT_TRUE(sameFile(dir_ / "new.csv", dir_ / "sub" / ".." / "new.csv"));
    EXPECT_FALSE(sameFile(dir_ / "new.csv", dir_ / "new.json"));
    EXPECT_FALSE(sameFile(dir_ / "a.json", dir_ / "new.json"));
    // A dangling link names the file a writer would create through it.
    fs::create_symlink("new.png", dir_ / "dangling");
    fs::create_symlink(dir_ / "sub" / "deep.png", dir_ / "absolute");
    EXPECT_TRUE(sameFile(dir_ / "dangling", dir_ / "new.png"));
    EXPECT_TRUE(sameFile(dir_ / "sub" / "deep.png", dir_ / "absolute"));
    EXPECT_FALSE(sameFile(dir_ / "dangling", dir_ / "new.json"));
    EXPECT_FALSE(sameFile(dir_ / "dangling", dir_ / "a.json"));
}

} // namespace
} // namespace slicescope::trace
