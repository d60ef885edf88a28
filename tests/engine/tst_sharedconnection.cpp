// Where --host keeps its shared ssh connections' sockets (remote/sharedconnection.h): a directory
// only this user can enter, or none at all.
#include "slicescope/remote/remotecommand.h"
#include "slicescope/remote/sharedconnection.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace slicescope::remote;
namespace fs = std::filesystem;

namespace {

class SharedConnectionDirectory : public ::testing::Test {
  protected:
    void SetUp() override {
        char pattern[] = "/tmp/ssc.XXXXXX";
        ASSERT_NE(::mkdtemp(pattern), nullptr);
        base_ = pattern;
    }
    void TearDown() override { fs::remove_all(base_); }
    mode_t modeOf(const std::string& path) {
        struct stat info {};
        EXPECT_EQ(::lstat(path.c_str(), &info), 0);
        return info.st_mode & 07777;
    }
    std::string base_;
};

TEST_F(SharedConnectionDirectory, MadePrivateUnderTheRuntimeDirectory) {
    const auto directory = sharedConnectionDirectory(base_.c_str(), "/tmp", ::getuid());
    ASSERT_TRUE(directory) << directory.error().message;
    EXPECT_EQ(*directory, base_ + "/slicescope-ssh");
    EXPECT_EQ(modeOf(*directory), 0700u);
    // Found again as it is.
    EXPECT_EQ(sharedConnectionDirectory(base_.c_str(), "/tmp", ::getuid()).value(), *directory);
    const std::string socket = sharedConnectionSocket(*directory, "gpu-box");
    EXPECT_EQ(socket.rfind(*directory + "/", 0), 0u);
    EXPECT_EQ(socket.substr(socket.size() - 3), "-%C"); // ssh's hash of what the alias resolved to
    EXPECT_EQ(socket.size(), directory->size() + 1 + 12 + 3);
}

TEST(SharedConnectionSocket, OneAWayOfNamingTheHost) {
    const std::string a = sharedConnectionSocket("/d", "gpu-box\n\nssh");
    EXPECT_EQ(a, sharedConnectionSocket("/d", "gpu-box\n\nssh")); // stable
    EXPECT_NE(a, sharedConnectionSocket("/d", "gpu-box-2\n\nssh"));
    EXPECT_NE(a, sharedConnectionSocket("/d", "gpu-box\n/other/config\nssh"));
    EXPECT_NE(a, sharedConnectionSocket("/d", "me@gpu-box\n\nssh"));
}

TEST_F(SharedConnectionDirectory, TemporaryDirectoryWithTheUserIdWithoutARuntimeDirectory) {
    const auto uid = ::getuid();
    const auto directory = sharedConnectionDirectory(nullptr, base_.c_str(), uid);
    ASSERT_TRUE(directory) << directory.error().message;
    EXPECT_EQ(*directory, base_ + "/slicescope-ssh-" + std::to_string(uid));
    // A relative runtime directory is not used either.
    EXPECT_EQ(sharedConnectionDirectory("run/user", base_.c_str(), uid).value(), *directory);
}

TEST_F(SharedConnectionDirectory, TooLongForASocketPathFallsBackToTmp) {
    const std::string deep = base_ + "/" + std::string(80, 'd');
    ASSERT_TRUE(fs::create_directory(deep));
    const auto directory = sharedConnectionDirectory(deep.c_str(), nullptr, ::getuid());
    ASSERT_TRUE(directory) << directory.error().message;
    EXPECT_EQ(directory->rfind("/tmp/slicescope-ssh-", 0), 0u) << *directory;
    // ssh's temporary name: the socket's, %C as 40 hex digits, then '.' and 16 characters.
    EXPECT_LE(sharedConnectionSocket(*directory, "key").size() - 2 + 40 + 17, 107u);
}

TEST_F(SharedConnectionDirectory, OneOthersCanEnterIsRefused) {
    const std::string open = base_ + "/slicescope-ssh";
    ASSERT_EQ(::mkdir(open.c_str(), 0755), 0);
    ASSERT_EQ(::chmod(open.c_str(), 0755), 0); // whatever the umask left
    const auto directory = sharedConnectionDirectory(base_.c_str(), "/tmp", ::getuid());
    ASSERT_FALSE(directory);
    EXPECT_NE(directory.error().message.find("can be entered by other users"), std::string::npos)
        << directory.error().message;
    EXPECT_EQ(modeOf(open), 0755u); // left as it was
}

TEST_F(SharedConnectionDirectory, ALinkIsNotFollowed) {
    const std::string target = base_ + "/elsewhere";
    ASSERT_EQ(::mkdir(target.c_str(), 0700), 0);
    ASSERT_EQ(::symlink(target.c_str(), (base_ + "/slicescope-ssh").c_str()), 0);
    const auto directory = sharedConnectionDirectory(base_.c_str(), "/tmp", ::getuid());
    ASSERT_FALSE(directory);
    EXPECT_NE(directory.error().message.find("is not a directory"), std::string::npos);
}

TEST_F(SharedConnectionDirectory, AnotherUsersIsRefused) {
    const auto directory = sharedConnectionDirectory(base_.c_str(), "/tmp", ::getuid() + 1);
    ASSERT_FALSE(directory);
    EXPECT_NE(directory.error().message.find("belongs to another user"), std::string::npos);
}

TEST_F(SharedConnectionDirectory, APercentSignIsRefused) {
    const std::string odd = base_ + "/100%";
    ASSERT_EQ(::mkdir(odd.c_str(), 0700), 0);
    const auto directory = sharedConnectionDirectory(odd.c_str(), "/tmp", ::getuid());
    ASSERT_FALSE(directory);
    EXPECT_NE(directory.error().message.find("ControlPath"), std::string::npos);
}

TEST(SharedConnection, OnUnlessTurnedOff) {
    EXPECT_TRUE(sharedConnectionsWanted(nullptr));
    EXPECT_TRUE(sharedConnectionsWanted("1"));
    EXPECT_TRUE(sharedConnectionsWanted(""));
    EXPECT_FALSE(sharedConnectionsWanted("0"));
}

TEST(SharedConnection, SshIsToldToShareBeforeTheHost) {
    SshTarget target;
    target.host = "gpu-box";
    SshOptions options;
    const auto plain = sshArgv(options, target, "true");
    EXPECT_EQ(std::find(plain.begin(), plain.end(), "ControlMaster=auto"), plain.end());
    options.controlPath = "/run/user/1000/slicescope-ssh/%C";
    const auto argv = sshArgv(options, target, "true");
    const auto host = std::find(argv.begin(), argv.end(), "--");
    for (const std::string& option : std::vector<std::string>{
             "ControlMaster=auto", "ControlPersist=" + std::to_string(kSharedConnectionIdleSeconds),
             "ControlPath=/run/user/1000/slicescope-ssh/%C"}) {
        const auto at = std::find(argv.begin(), argv.end(), option);
        ASSERT_NE(at, argv.end()) << option;
        EXPECT_EQ(*(at - 1), "-o");
        EXPECT_LT(at, host) << option;
    }
}

} // namespace
