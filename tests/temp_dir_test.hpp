// Fixture base for tests that write files: each test gets a fresh directory dir_ (removed
// afterwards) and write(name, content) returns the written file's path.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <utility>

namespace warpmatch_test {

class TempDirTest : public ::testing::Test {
 protected:
  explicit TempDirTest(std::string prefix = "warpmatch-test-") : prefix_(std::move(prefix)) {}
  void SetUp() override {
    std::string tmpl = (std::filesystem::path(::testing::TempDir()) / (prefix_ + "XXXXXX")).string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string write(const std::string& name, const std::string& content) {
    const std::string p = (dir_ / name).string();
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }
  std::filesystem::path dir_;

 private:
  std::string prefix_;
};

}  // namespace warpmatch_test
