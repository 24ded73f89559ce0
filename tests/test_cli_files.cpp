// grep's file flags on find and approx (cli/file_selection.hpp, cli/input_walk.hpp): -l / -L
// over several inputs and stdin, each input's reading stopped at its first match; -r over a
// tree (nested directories, a gzip file, links inside not followed, a link operand followed,
// name order); unreadable files and directories; -s; the exclusions and precedences. GNU grep
// (/usr/bin/grep) is the oracle where it reads the same bytes: plain files.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cli_test_support.hpp"

namespace fs = std::filesystem;
using warpmatch_test::CliResult;
using warpmatch_test::quote;

namespace {

class CliFiles : public warpmatch_test::CliTest {
 protected:
  CliFiles() : CliTest("warpmatch_cli_files_") {}

  // `command` (the CLI as "$WM", or grep) with `args`, run in dir_ so names are relative as a
  // user types them, with `input` on stdin.
  CliResult run_in_dir(const std::string& command, const std::vector<std::string>& args, const std::string& input = {}) {
    file(".in", input);
    std::string line = command;
    for (const auto& a : args) line += " " + quote(a);
    return shell(line + " < .in");
  }
  CliResult wm(const std::vector<std::string>& args, const std::string& input = {}) {
    return run_in_dir("\"$WM\"", args, input);
  }
  CliResult grep(const std::vector<std::string>& args, const std::string& input = {}) {
    return run_in_dir("/usr/bin/grep", args, input);
  }

  void mkdir(const std::string& name) { fs::create_directories(dir_ / name); }

  // `find --lines ARGS` and `grep -F ARGS`, and ARGS as one string for messages.
  struct FindAndGrep {
    CliResult got, want;
    std::string what;
  };
  FindAndGrep find_and_grep(const std::vector<std::string>& args) {
    std::vector<std::string> ours = {"find", "--lines"}, theirs = {"-F"};
    ours.insert(ours.end(), args.begin(), args.end());
    theirs.insert(theirs.end(), args.begin(), args.end());
    FindAndGrep r{wm(ours), grep(theirs), {}};
    for (const auto& a : args) r.what += a + " ";
    return r;
  }

  // The tree of the -r tests; `needle` is in every file but none.txt (and the links' target):
  //   t/a-b.txt t/a.txt t/b.txt t/c.txt.gz t/none.txt t/sub/deeper/m.txt t/sub/z.txt t/sub-x.txt
  //   t/link.txt -> ../outside.txt and t/dirlink -> sub: links inside the tree, not followed.
  // Per directory, "a-b.txt" < "a.txt" ('-' < '.') and "sub" < "sub-x.txt", so t/sub/... come
  // before t/sub-x.txt: not the order of the whole paths sorted ('-' < '/').
  void make_tree() {
    mkdir("t/sub/deeper");
    for (const char* name : {"t/b.txt", "t/a.txt", "t/a-b.txt", "t/sub/z.txt", "t/sub/deeper/m.txt", "t/sub-x.txt"})
      file(name, "hay needle hay\n");
    warpmatch_test::write_gzip(dir_ / "t/c.txt.gz", "compressed needle\n");
    file("t/none.txt", "hay\n");
    file("outside.txt", "needle outside\n");
    fs::create_symlink("../outside.txt", dir_ / "t/link.txt");
    fs::create_directory_symlink("sub", dir_ / "t/dirlink");
  }
};

const std::string kTreeWithMatches =
    "t/a-b.txt\nt/a.txt\nt/b.txt\nt/c.txt.gz\nt/sub/deeper/m.txt\nt/sub/z.txt\nt/sub-x.txt\n";

// The lines of `text`, sorted, without those naming `except` (a file grep reads differently).
std::vector<std::string> sorted_lines(const std::string& text, const std::string& except = "\x01") {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.find(except) == std::string::npos) lines.push_back(line);
  std::sort(lines.begin(), lines.end());
  return lines;
}

}  // namespace

// --- -l / -L ------------------------------------------------------------------------------------

TEST_F(CliFiles, ListsInputsWithAndWithoutMatchesAsGrepDoes) {
  file("a.txt", "needle and needle again\nneedle\n");  // listed once, however many matches
  file("b.txt", "hay\n");
  file("c.txt", "more needle\n");
  const std::vector<std::string> inputs = {"a.txt", "b.txt", "missing.txt", "c.txt"};
  for (const char* flag : {"-l", "-L"}) {
    std::vector<std::string> args = {flag, "needle"};
    args.insert(args.end(), inputs.begin(), inputs.end());
    std::vector<std::string> find = args, approx = args;
    find.insert(find.begin(), "find");
    approx.insert(approx.begin(), {"approx", "-k", "0"});
    const CliResult oracle = grep(args);
    for (const auto& command : {find, approx}) {
      const CliResult r = wm(command);
      EXPECT_EQ(r.out, std::string(flag) == "-l" ? "a.txt\nc.txt\n" : "b.txt\n") << command[0] << " " << flag;
      EXPECT_EQ(r.out, oracle.out) << command[0] << " " << flag;
      EXPECT_EQ(r.status, 2) << command[0] << " " << flag;  // the missing input
      EXPECT_EQ(r.status, oracle.status);
      EXPECT_EQ(r.err, "warpmatch: missing.txt: No such file or directory\n") << command[0] << " " << flag;
    }
  }
}

TEST_F(CliFiles, ExitStatusOfMinusLIsThatOfGnuGrep) {
  // GNU grep 3.5 and later (3.8 here): -L does not change the status; 0 still means that some
  // input matched, 1 that none did, whatever -L listed.
  file("yes.txt", "needle\n");
  file("no.txt", "hay\n");
  const std::vector<std::vector<std::string>> cases = {{"yes.txt", "no.txt"}, {"yes.txt"}, {"no.txt"}};
  const std::vector<int> statuses = {0, 0, 1};
  for (std::size_t i = 0; i < cases.size(); ++i) {
    std::vector<std::string> args = {"-L", "needle"};
    args.insert(args.end(), cases[i].begin(), cases[i].end());
    const CliResult oracle = grep(args);
    std::vector<std::string> find = args;
    find.insert(find.begin(), "find");
    const CliResult r = wm(find);
    EXPECT_EQ(r.status, statuses[i]) << cases[i].size() << " inputs";
    EXPECT_EQ(r.status, oracle.status);
    EXPECT_EQ(r.out, oracle.out);
  }
  for (const std::string command : {"find", "approx"})
    EXPECT_NE(wm({command, "--help"}).out.find("(GNU grep 3.5 and later)"), std::string::npos) << command;
}

TEST_F(CliFiles, StandardInputIsNamedAsGrepNamesIt) {
  EXPECT_EQ(wm({"find", "-l", "needle"}, "a needle\n").out, "(standard input)\n");
  EXPECT_EQ(grep({"-l", "needle"}, "a needle\n").out, "(standard input)\n");
  const CliResult without = wm({"find", "-L", "needle", "-"}, "hay\n");
  EXPECT_EQ(without.out, "(standard input)\n");
  EXPECT_EQ(without.status, 1);
  EXPECT_EQ(wm({"approx", "-k", "1", "-l", "needle"}, "a neddle\n").out, "(standard input)\n");
  // Among files, and with -c, which -l overrides (grep -lc prints names).
  file("a.txt", "needle\n");
  EXPECT_EQ(wm({"find", "-l", "-c", "needle", "a.txt", "-"}, "needle\n").out, "a.txt\n(standard input)\n");
}

TEST_F(CliFiles, ListingStopsReadingAnInputAtItsFirstMatch) {
  // An endless input with a match at its start: -l and -L end at once (a search that read on
  // would run into the timeout, status 124) and -l prints the name once.
  const std::string endless = "{ printf 'hay needle\\n'; cat /dev/zero; } | timeout 60 \"$WM\" ";
  CliResult r = shell(endless + "find -l needle; echo rc=$?");
  EXPECT_EQ(r.out, "(standard input)\nrc=0\n") << r.err;
  r = shell(endless + "find -L needle; echo rc=$?");
  EXPECT_EQ(r.out, "rc=0\n") << r.err;
  r = shell(endless + "approx -k 1 -l needle; echo rc=$?");
  EXPECT_EQ(r.out, "(standard input)\nrc=0\n") << r.err;
  // A 3 GiB file (sparse) with the match at its start: one window is searched, not three.
  const fs::path big = file("big.txt", "needle");
  fs::resize_file(big, std::uint64_t{3} << 30);
  r = wm({"find", "--backend", "cpu", "-l", "--stats", "needle", "big.txt"});
  EXPECT_EQ(r.out, "big.txt\n");
  const std::size_t at = r.err.find(" bytes searched");
  ASSERT_NE(at, std::string::npos) << r.err;
  const std::size_t from = r.err.rfind(' ', at - 1) + 1;
  EXPECT_LT(std::stoull(r.err.substr(from, at - from)), std::uint64_t{3} << 30) << r.err;
}

// --- -r -----------------------------------------------------------------------------------------

TEST_F(CliFiles, RecursiveSearchWalksTheTreeInNameOrderSkippingLinksInside) {
  make_tree();
  const CliResult listed = wm({"find", "-rl", "needle", "t"});
  EXPECT_EQ(listed.status, 0) << listed.err;
  EXPECT_EQ(listed.out, kTreeWithMatches);  // the gzip file decompressed; no link followed
  const CliResult approx = wm({"approx", "-k", "0", "-r", "-l", "needle", "t"});
  EXPECT_EQ(approx.out, kTreeWithMatches) << approx.err;
  // The hits themselves, named dir/sub/file as with several inputs.
  const CliResult hits = wm({"find", "-r", "needle", "t/sub"});
  EXPECT_EQ(hits.out, "t/sub/deeper/m.txt:4:needle\nt/sub/z.txt:4:needle\n");
  EXPECT_EQ(wm({"find", "-r", "-h", "needle", "t/sub"}).out, "4:needle\n4:needle\n");
  EXPECT_EQ(wm({"find", "-r", "-c", "needle", "t/sub"}).out, "t/sub/deeper/m.txt:1\nt/sub/z.txt:1\n");
  // GNU grep lists the same plain files (in its own order; it reads the gzip file as bytes).
  EXPECT_EQ(sorted_lines(listed.out, "c.txt.gz"), sorted_lines(grep({"-rl", "needle", "t"}).out));
  const CliResult without = wm({"find", "-rL", "needle", "t"});
  EXPECT_EQ(without.out, "t/none.txt\n");
  EXPECT_EQ(sorted_lines(without.out), sorted_lines(grep({"-rL", "needle", "t"}).out, "c.txt.gz"));
}

TEST_F(CliFiles, RecursiveSearchFollowsLinkOperandsAndDefaultsToTheWorkingDirectory) {
  make_tree();
  fs::create_directory_symlink("t", dir_ / "tl");
  std::string via_link = kTreeWithMatches;
  for (std::size_t at = 0; (at = via_link.find("t/", at)) != std::string::npos; at += 3)
    if (at == 0 || via_link[at - 1] == '\n') via_link.replace(at, 2, "tl/");
  EXPECT_EQ(wm({"find", "-rl", "needle", "tl"}).out, via_link);
  EXPECT_EQ(grep({"-rl", "needle", "tl"}).status, 0);  // grep follows a link operand too
  // No FILE: the working directory, its files named without ./ (grep -r names them so).
  const CliResult here = shell("cd t && \"$WM\" find -rl needle");
  EXPECT_EQ(here.out, "a-b.txt\na.txt\nb.txt\nc.txt.gz\nsub/deeper/m.txt\nsub/z.txt\nsub-x.txt\n") << here.err;
  const CliResult grep_here = shell("cd t && /usr/bin/grep -rl needle");
  EXPECT_EQ(sorted_lines(here.out, "c.txt.gz"), sorted_lines(grep_here.out));
  // One file operand under -r is named as without -r (grep): not at all.
  EXPECT_EQ(wm({"find", "-r", "needle", "t/a.txt"}).out, "4:needle\n");
  EXPECT_EQ(grep({"-r", "needle", "t/a.txt"}).out, "hay needle hay\n");
}

TEST_F(CliFiles, DirectoryWithoutRecursiveIsOneMessageAndTheOthersAreSearched) {
  mkdir("d");
  file("a.txt", "needle\n");
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"find", "needle", "d", "a.txt"}, {"approx", "-k", "0", "needle", "d", "a.txt"}}) {
    const CliResult r = wm(args);
    EXPECT_EQ(r.status, 2) << args[0];
    EXPECT_EQ(r.err, "warpmatch: d: is a directory\n") << args[0];
    EXPECT_EQ(r.out, args[0] == "find" ? "a.txt:0:needle\n" : "a.txt:0:6:0:needle\n");
  }
  const CliResult oracle = grep({"needle", "d", "a.txt"});
  EXPECT_EQ(oracle.status, 2);
  EXPECT_EQ(oracle.err, "/usr/bin/grep: d: Is a directory\n");  // grep names itself by argv[0]
}

// Unreadable inputs need a user that permissions bind: root reads everything, so as root the
// CLI runs as nobody (setpriv), or the test is skipped where that cannot be done.
TEST_F(CliFiles, UnreadableFilesAndDirectoriesAreNamedAndTheRestSearched) {
  std::string as_user;
  if (::geteuid() == 0) {
    as_user = "setpriv --reuid=65534 --regid=65534 --clear-groups ";
    fs::permissions(dir_, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                              fs::perms::others_read | fs::perms::others_exec);
    if (shell(as_user + "\"$WM\" --help > /dev/null").status != 0)
      GTEST_SKIP() << "running as root, and the CLI cannot be run as nobody here (setpriv)";
  }
  make_tree();
  fs::permissions(file("t/b.txt", "needle\n"), fs::perms::none);
  mkdir("t/locked");
  file("t/locked/inside.txt", "needle\n");
  fs::permissions(dir_ / "t/locked", fs::perms::none);
  const CliResult r = shell(as_user + "\"$WM\" find -rl needle t");
  std::string expected = kTreeWithMatches;
  expected.erase(expected.find("t/b.txt\n"), 8);
  EXPECT_EQ(r.out, expected);
  EXPECT_EQ(r.err, "warpmatch: t/b.txt: Permission denied\nwarpmatch: t/locked: Permission denied\n");
  EXPECT_EQ(r.status, 2);
  // The same with files searched ahead and directories listed ahead (cli/file_jobs.hpp): each
  // message in its turn.
  const CliResult ahead = shell(as_user + "\"$WM\" find -j 8 -rl needle t");
  EXPECT_EQ(ahead.out, r.out);
  EXPECT_EQ(ahead.err, r.err);
  EXPECT_EQ(ahead.status, 2);
  const CliResult quiet = shell(as_user + "\"$WM\" approx -k 0 -s -rl needle t");
  EXPECT_EQ(quiet.out, expected);
  EXPECT_EQ(quiet.err, "");
  EXPECT_EQ(quiet.status, 2);
  fs::permissions(dir_ / "t/locked", fs::perms::owner_all);  // for the clean-up
}

// --- -s -----------------------------------------------------------------------------------------

TEST_F(CliFiles, NoMessagesHidesInputErrorsButKeepsTheStatus) {
  file("a.txt", "needle\n");
  mkdir("d");
  for (const std::string& command : {std::string("find"), std::string("approx")}) {
    std::vector<std::string> args = {command, "-s", "needle", "missing.txt", "d", "a.txt"};
    if (command == "approx") args.insert(args.begin() + 1, {"-k", "0"});
    const CliResult r = wm(args);
    EXPECT_EQ(r.err, "") << command;
    EXPECT_EQ(r.status, 2) << command;
    EXPECT_NE(r.out.find("a.txt:0:"), std::string::npos) << command;
  }
  const CliResult oracle = grep({"-s", "needle", "missing.txt", "d", "a.txt"});
  EXPECT_EQ(oracle.err, "");
  EXPECT_EQ(oracle.status, 2);
  // A corrupt compressed input is an input that cannot be read: its message is hidden too.
  std::string gz;
  {
    warpmatch_test::write_gzip(dir_ / "bad.gz", std::string(4096, 'x') + "needle");
    gz = warpmatch_test::read_file(dir_ / "bad.gz");
  }
  file("bad.gz", gz.substr(0, gz.size() / 2));
  EXPECT_NE(wm({"find", "needle", "bad.gz"}).err, "");
  const CliResult corrupt = wm({"find", "-s", "needle", "bad.gz"});
  EXPECT_EQ(corrupt.err, "");
  EXPECT_EQ(corrupt.status, 2);
  // -q: a match still wins over the hidden error, as grep -sq.
  EXPECT_EQ(wm({"find", "-sq", "needle", "missing.txt", "a.txt"}).status, 0);
  EXPECT_EQ(grep({"-sq", "needle", "missing.txt", "a.txt"}).status, 0);
  // Usage errors are no input's: -s leaves them.
  EXPECT_NE(wm({"find", "-s", "-l", "--json", "needle", "a.txt"}).err, "");
}

// --- combinations ---------------------------------------------------------------------------------

TEST_F(CliFiles, ListingExcludesTheHitFormatsAndEachOther) {
  file("a.txt", "needle\n");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"find", "-l", "--json", "needle", "a.txt"}, "--json excludes --files-with-matches"},
      {{"find", "-L", "--json", "needle", "a.txt"}, "--json excludes --files-without-match"},
      {{"find", "-l", "--bed", "needle", "a.txt"}, "--bed excludes --files-with-matches"},
      {{"find", "-L", "--tsv", "needle", "a.txt"}, "--tsv excludes --files-without-match"},
      {{"find", "-l", "-L", "needle", "a.txt"}, "--files-with-matches excludes --files-without-match"},
      {{"approx", "-k", "0", "-l", "--json", "needle", "a.txt"}, "--json excludes --files-with-matches"},
      {{"approx", "-k", "0", "-L", "--bed", "needle", "a.txt"}, "--bed excludes --files-without-match"},
      {{"approx", "-k", "0", "-L", "-l", "needle", "a.txt"}, "--files-with-matches excludes --files-without-match"},
  };
  for (const auto& [args, message] : cases) {
    const CliResult r = wm(args);
    EXPECT_EQ(r.status, 2) << message;
    EXPECT_EQ(r.err.substr(0, r.err.find('\n')), message);
    EXPECT_EQ(r.out, "") << message;
  }
}

TEST_F(CliFiles, QuietWinsOverListingAndListingOverCountsAsInGrep) {
  file("yes.txt", "needle needle\n");
  file("no.txt", "hay\n");
  const std::vector<std::vector<std::string>> cases = {
      {"-l", "-c", "needle", "yes.txt", "no.txt"},  // names, not counts
      {"-L", "-c", "needle", "yes.txt", "no.txt"},
      {"-q", "-l", "needle", "yes.txt", "no.txt"},  // nothing, status 0
      {"-q", "-L", "needle", "no.txt"},             // nothing, status 1 (-q's)
      {"-q", "-L", "needle", "yes.txt"},            // nothing, status 0
  };
  for (const auto& args : cases) {
    std::vector<std::string> find = args;
    find.insert(find.begin(), "find");
    const CliResult r = wm(find), oracle = grep(args);
    EXPECT_EQ(r.out, oracle.out) << args[0] << args[1] << " " << args.back();
    EXPECT_EQ(r.status, oracle.status) << args[0] << args[1] << " " << args.back();
  }
  EXPECT_EQ(wm({"find", "-lc", "needle", "yes.txt", "no.txt"}).out, "yes.txt\n");
  // -m 0 reads nothing: -l lists nothing (status 1), -L every input that opens (grep).
  EXPECT_EQ(wm({"find", "-l", "-m", "0", "needle", "yes.txt"}).status, 1);
  const CliResult none = wm({"find", "-L", "-m", "0", "needle", "yes.txt", "no.txt"});
  EXPECT_EQ(none.out, "yes.txt\nno.txt\n");
  EXPECT_EQ(none.out, grep({"-L", "-m", "0", "needle", "yes.txt", "no.txt"}).out);
  EXPECT_EQ(none.status, 1);
}

// --- files searched ahead (cli/file_jobs.hpp) ----------------------------------------------------

// Several threads search the small files of a tree ahead, each into memory, and the searcher
// prints them in input order: -j 4 prints, byte for byte, what -j 1 (one file after the
// other) prints, on stdout and stderr, with the same status. The tree mixes what each thread
// takes (small plain files, gzip, FASTA, an empty file) with what it leaves to the searcher's
// own turn (a file over the size it takes, a file whose hits outgrow what it holds, standard
// input, a FIFO operand), a corrupt gzip file in the middle (its message in its place) and
// hits at every file's edges. GNU grep lists the same plain files.
TEST_F(CliFiles, FilesSearchedAheadPrintWhatOneThreadPrints) {
  std::mt19937 rng(20261127);
  for (int d = 0; d < 6; ++d) mkdir("m/d" + std::to_string(d));
  for (int d = 0; d < 6; ++d)
    for (int f = 0; f < 40; ++f) {
      std::string text;
      const std::size_t lines = rng() % 300;
      for (std::size_t l = 0; l < lines; ++l) {
        std::string line(rng() % 60, 'h');
        if (rng() % 7 == 0) line.insert(line.size() / 2, "needle");
        text += line + "\n";
      }
      if (f % 5 == 0) text = "needle" + text + "needle";  // hits at both edges, no final newline
      file("m/d" + std::to_string(d) + "/f" + std::to_string(f) + ".txt", text);
    }
  file("m/d2/empty.txt", "");
  std::string flood;  // ~1.2 MB of hits to print: more than a thread holds for one file
  for (int i = 0; i < 120000; ++i) flood += "needle\n";
  file("m/d3/flood.txt", flood);
  std::string big(3 << 20, 'h');  // over the size a thread takes
  big.replace(1 << 20, 6, "needle");
  big.replace(big.size() - 6, 6, "needle");
  file("m/d1/big.txt", big);
  warpmatch_test::write_gzip(dir_ / "m/d4/c.txt.gz", "compressed needle\nneedle\n");
  file("m/d4/r.fa", ">r1\nhhneed\nlehh\n>r2\nneedle\n");
  warpmatch_test::write_gzip(dir_ / "m/d2/bad.gz", std::string(4096, 'x') + "needle");
  const std::string gz = warpmatch_test::read_file(dir_ / "m/d2/bad.gz");
  file("m/d2/bad.gz", gz.substr(0, gz.size() / 2));

  const std::vector<std::vector<std::string>> cases = {
      {"find", "-r", "needle", "m"},
      {"find", "-r", "-c", "needle", "m"},
      {"find", "-r", "-l", "needle", "m"},
      {"find", "-r", "-L", "needle", "m"},
      {"find", "-r", "-m", "2", "-n", "needle", "m"},
      {"find", "-r", "--lines", "-n", "-C", "1", "needle", "m"},  // "--" between files' groups; FASTA refused
      {"find", "-r", "-v", "-c", "needle", "m"},
      {"find", "-r", "-c", "-e", "needle", "-e", "hhh", "m"},
      {"find", "-r", "-q", "needle", "m"},
      {"find", "-r", "-s", "-o", "-b", "needle", "m"},
      {"approx", "-r", "-k", "1", "needle", "m"},
      {"find", "needle", "m/d0/f1.txt", "-", "m/d0/f2.txt", "m/missing.txt", "m/d0/f3.txt"},
  };
  for (std::vector<std::string> args : cases) {
    std::string shown;
    for (const std::string& a : args) shown += a + " ";
    args.insert(args.begin() + 1, {"-j", "1"});
    const CliResult one = wm(args, "stdin needle\n");
    args[2] = "4";
    const CliResult four = wm(args, "stdin needle\n");
    EXPECT_EQ(four.status, one.status) << shown;
    EXPECT_TRUE(four.out == one.out) << shown << ": " << four.out.size() << " vs " << one.out.size() << " bytes";
    EXPECT_EQ(four.err, one.err) << shown;
    EXPECT_FALSE(one.out.empty() && shown.find(" -q ") == std::string::npos) << shown;
  }
  // The JSON lines, but the summary's times.
  const CliResult json1 = wm({"find", "-j", "1", "-r", "--json", "needle", "m"});
  const CliResult json4 = wm({"find", "-j", "4", "-r", "--json", "needle", "m"});
  EXPECT_TRUE(json4.out.substr(0, json4.out.rfind("{\"type\":\"summary\"")) ==
              json1.out.substr(0, json1.out.rfind("{\"type\":\"summary\"")));
  // A FIFO operand is opened once, by the search in its turn: its writer meets one reader.
  ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0600), 0);
  const CliResult fifo = shell("(printf 'fifo needle\\n' > fifo &) && \"$WM\" find -j 4 needle m/d0/f1.txt fifo m/d0/f2.txt");
  EXPECT_NE(fifo.out.find("fifo:5:needle\n"), std::string::npos) << fifo.err;
  EXPECT_EQ(fifo.status, 0) << fifo.err;
  // GNU grep lists the same plain files.
  const CliResult listed = wm({"find", "-j", "4", "-rl", "needle", "m"});
  EXPECT_EQ(sorted_lines(listed.out, ".gz"), sorted_lines(grep({"-rl", "needle", "m"}).out, ".gz"));
}

// --- --include, --exclude, --exclude-dir, -Z, --label --------------------------------------------

TEST_F(CliFiles, NameRulesChooseWhatGrepChooses) {
  make_tree();
  mkdir("t/sub/skip.d");
  file("t/sub/skip.d/n.txt", "needle\n");
  file("t/x.c", "needle in c\n");
  file("t/sub/y.c", "needle in c\n");
  // grep -r lists in directory order and reads the gzip file as binary: the lines compared
  // sorted, c.txt.gz's left out (its name rules are checked below, in our order).
  const std::vector<std::vector<std::string>> cases = {
      {"-r", "--include=*.c", "needle", "t"},
      {"-r", "--include=*.c", "--include=a*", "needle", "t"},
      {"-r", "--exclude=*.txt", "needle", "t"},
      {"-r", "--include=*.c", "--exclude=x*", "needle", "t"},   // both match x.c: the last wins
      {"-r", "--exclude=x*", "--include=*.c", "needle", "t"},   // ... and none matched: first rule exclude
      {"-r", "--exclude-dir=sub", "needle", "t"},
      {"-r", "--exclude-dir=s*", "--include=*.txt", "needle", "t"},
      {"-r", "--exclude-dir=*.d/", "needle", "t"},               // the GLOB's trailing '/' ignored
      {"-r", "--exclude-dir=deep?r", "needle", "t"},
      {"-r", "--exclude-dir=t", "needle", "t", "outside.txt"},   // a directory operand
      {"-r", "--exclude-dir=t", "needle", "t/", "outside.txt"},  // "t/" is not "t" (grep)
      {"-r", "--exclude-dir=sub", "needle", "t/sub/z.txt"},      // a file operand is no directory
      {"--exclude=a.txt", "needle", "t/a.txt", "t/b.txt"},       // an operand by a part after '/'
      {"--exclude=t/a.txt", "needle", "t/a.txt", "t/b.txt"},
      {"--exclude=/a.txt", "needle", "t/a.txt", "t/b.txt"},      // no part starts with '/'
      {"--exclude=*/a.txt", "needle", "t/a.txt", "t/b.txt"},     // '*' matches '/'
      {"--include=*.c", "needle", "t/a.txt", "t/x.c"},
      {"--exclude=[ab].txt", "needle", "t/a.txt", "t/b.txt", "t/x.c"},
      {"-r", "--exclude=\\*", "needle", "t"},                    // a quoted '*' is a '*'
  };
  for (const auto& args : cases) {
    const auto [got, want, what] = find_and_grep(args);
    EXPECT_EQ(sorted_lines(got.out, "c.txt.gz"), sorted_lines(want.out, "c.txt.gz")) << what << got.err;
    EXPECT_EQ(got.status, want.status) << what;
  }
  // The rules change what is searched (they are tested), and the walk keeps its name order.
  EXPECT_EQ(wm({"find", "-rl", "--include=*.c", "needle", "t"}).out, "t/sub/y.c\nt/x.c\n");
  EXPECT_EQ(wm({"find", "-rl", "--include=*.gz", "--include=m*", "needle", "t"}).out, "t/c.txt.gz\nt/sub/deeper/m.txt\n");
  EXPECT_EQ(wm({"find", "-rl", "--exclude-dir=sub", "--exclude=*.txt", "needle", "t"}).out, "t/c.txt.gz\nt/x.c\n");
  EXPECT_EQ(wm({"approx", "-k", "0", "-rl", "--exclude-dir=sub", "--exclude=*.txt", "needle", "t"}).out,
            "t/c.txt.gz\nt/x.c\n");
  // A bare -r's working directory is not an operand: --exclude-dir=. skips nothing there.
  const CliResult here = shell("cd t && \"$WM\" find -rl --exclude-dir=. --include=*.c needle");
  EXPECT_EQ(here.out, "sub/y.c\nx.c\n") << here.err;
  // Standard input is always searched, whatever the rules.
  EXPECT_EQ(wm({"find", "-c", "--exclude=*", "--include=*.c", "needle", "-"}, "needle\n").out, "1\n");
  EXPECT_EQ(grep({"-c", "--exclude=*", "--include=*.c", "needle", "-"}, "needle\n").out, "1\n");
  // No file left: exit 1, as grep.
  EXPECT_EQ(wm({"find", "-r", "--include=*.none", "needle", "t"}).status, 1);
}

TEST_F(CliFiles, NullAfterNamesIsGrepsZ) {
  make_tree();
  const std::vector<std::vector<std::string>> cases = {
      {"-rlZ", "needle", "t/sub"},
      {"-rLZ", "--exclude=*.gz", "needle", "t"},  // (grep reads the gzip file as bytes)
      {"-rcZ", "needle", "t/sub"},
      {"-rZ", "-n", "needle", "t/sub"},
      {"-Z", "-C", "1", "needle", "t/a.txt", "t/none.txt", "outside.txt"},
      {"-Z", "-v", "needle", "t/a.txt", "t/none.txt"},
      {"-rZ", "--color=always", "needle", "t/sub"},
      {"-rZ", "-c", "--color=always", "needle", "t/sub"},
      {"-rZ", "-l", "--color=always", "needle", "t/sub"},
      {"-Z", "needle", "t/a.txt"},  // one input: no name, no NUL
  };
  for (const auto& args : cases) {
    const auto [got, want, what] = find_and_grep(args);
    // grep's order within a directory is the file system's: compared as sorted records (a
    // line, or -l / -L's NUL-ended name).
    const bool listing = args.front().find_first_of("lL") != std::string::npos || args[1] == "-l";
    const auto records = [&](const std::string& text) {
      std::vector<std::string> parts;
      std::string part;
      for (char c : text) {
        part += c;
        if (c == '\n' || (listing && c == '\0')) parts.push_back(part), part.clear();
      }
      if (!part.empty()) parts.push_back(part);
      std::sort(parts.begin(), parts.end());
      return parts;
    };
    EXPECT_EQ(records(got.out), records(want.out)) << what;
    EXPECT_EQ(got.out.find('\0') != std::string::npos, args.back() != "t/a.txt") << what;
  }
  // The hits' own format: PATH\0START:MATCH; -l's names end in NUL alone (xargs -0).
  EXPECT_EQ(wm({"find", "-Z", "needle", "t/a.txt", "t/b.txt"}).out, std::string("t/a.txt\0" "4:needle\nt/b.txt\0" "4:needle\n", 34));
  EXPECT_EQ(wm({"find", "-lZ", "needle", "t/a.txt", "t/b.txt"}).out, std::string("t/a.txt\0t/b.txt\0", 16));
  EXPECT_EQ(wm({"approx", "-k", "0", "-lZ", "needle", "t/a.txt", "t/b.txt"}).out, std::string("t/a.txt\0t/b.txt\0", 16));
  // JSON carries names as fields: -Z changes nothing there.
  EXPECT_EQ(wm({"find", "-Z", "--json", "needle", "t/a.txt", "t/b.txt"}).out.find('\0'), std::string::npos);
}

TEST_F(CliFiles, LabelNamesStandardInput) {
  file("a.txt", "needle\n");
  EXPECT_EQ(wm({"find", "--label=pipe", "-H", "--lines", "needle"}, "a needle\n").out, "pipe:a needle\n");
  EXPECT_EQ(grep({"--label=pipe", "-H", "needle"}, "a needle\n").out, "pipe:a needle\n");
  EXPECT_EQ(wm({"find", "--label", "pipe", "-c", "needle", "a.txt", "-"}, "needle needle\n").out, "a.txt:1\npipe:2\n");
  EXPECT_EQ(wm({"find", "--label=pipe", "-L", "needle", "-"}, "hay\n").out, "pipe\n");
  EXPECT_EQ(wm({"approx", "-k", "1", "--label=pipe", "-l", "needle"}, "a neddle\n").out, "pipe\n");
  const auto json = warpmatch_test::json_lines(wm({"find", "--label=pipe", "--json", "needle"}, "needle\n").out);
  ASSERT_FALSE(json.empty());
  EXPECT_EQ(json.front().at("path"), "pipe");
  // A corrupt stream is named by its label too.
  const CliResult bad = shell("printf '\\037\\213\\010\\000garbage' | \"$WM\" find --label=pipe needle");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("pipe"), std::string::npos) << bad.err;
}

TEST_F(CliFiles, BinaryInputsSkippedWithMinusIAsGrepSkipsThem) {
  mkdir("b");
  file("b/text.txt", "needle\n");
  file("b/late-nul.txt", "needle\n" + std::string(70000, 'x') + "\n" + std::string("needle\0\n", 8));  // one window
  file("b/bin.dat", std::string("ELF\0\0needle\n", 12));
  file("b/bin-none.dat", std::string("\0hay\n", 5));
  warpmatch_test::write_gzip(dir_ / "b/bin.gz", std::string("\0needle\n", 8));
  // Plain files: what grep -I prints (sorted: grep's walk order is the file system's).
  const std::vector<std::vector<std::string>> cases = {
      {"-r", "-I", "needle", "b"}, {"-r", "-I", "-c", "needle", "b"}, {"-r", "-I", "-L", "needle", "b"},
      {"-r", "-I", "-l", "needle", "b"}, {"-I", "-c", "needle", "b/bin.dat"}, {"-I", "-L", "needle", "b/bin.dat"}};
  for (auto args : cases) {
    args.insert(args.begin(), "--exclude=*.gz");
    const auto [got, want, what] = find_and_grep(args);
    EXPECT_EQ(sorted_lines(got.out), sorted_lines(want.out)) << what;
    EXPECT_EQ(got.status, want.status) << what;
  }
  // Decompressed bytes decide for a gzip file; without -I every input is searched as text.
  EXPECT_EQ(wm({"find", "-r", "-I", "-l", "needle", "b"}).out, "b/text.txt\n");
  EXPECT_EQ(wm({"find", "-r", "-l", "needle", "b"}).out, "b/bin.dat\nb/bin.gz\nb/late-nul.txt\nb/text.txt\n");
  EXPECT_EQ(wm({"find", "-r", "-a", "-l", "needle", "b"}).out, "b/bin.dat\nb/bin.gz\nb/late-nul.txt\nb/text.txt\n");
  EXPECT_EQ(wm({"approx", "-k", "0", "-r", "-I", "-l", "needle", "b"}).out, "b/text.txt\n");
  // One binary input alone: no match, exit 1; from a pipe too.
  EXPECT_EQ(wm({"find", "-I", "needle", "b/bin.dat"}).status, 1);
  const CliResult piped_bin = shell("cat b/bin.dat | \"$WM\" find -I -c needle");
  EXPECT_EQ(piped_bin.out, "0\n") << piped_bin.err;
  EXPECT_EQ(piped_bin.status, 1);
  // A stream whose NUL comes windows later: the windows before it print their hits (as grep
  // prints the lines it read before its NUL), -c takes it as without a match, -l and -L have
  // stopped at its first hit (grep -I on such a file: the same).
  std::string late = "needle\n";
  while (late.size() < (std::size_t{3} << 20)) late += std::string(99, 'x') + "\n";
  late += std::string("\0needle\n", 8);
  file("late.txt", late);
  const auto streamed = [&](const std::string& args) { return shell("cat late.txt | \"$WM\" find --window 1M " + args + " needle"); };
  EXPECT_EQ(streamed("-I --lines").out, "needle\n");
  EXPECT_EQ(streamed("-I --lines").status, 0);
  EXPECT_EQ(streamed("-I -c").out, "0\n");
  EXPECT_EQ(streamed("-I -L").out, "");
  EXPECT_EQ(streamed("-I -l").out, "(standard input)\n");
  EXPECT_EQ(streamed("-c").out, "2\n");
  EXPECT_EQ(wm({"find", "-I", "-c", "needle", "late.txt"}).out, "0\n");  // mapped: one window
  EXPECT_EQ(grep({"-I", "-c", "needle", "late.txt"}).out, "0\n");
}

TEST_F(CliFiles, BinaryInputsPrintGrepsBinaryFileMatches) {
  // Where lines are printed, a plain input holding a NUL prints grep's note on stderr
  // instead of its lines (grep 3.8: "grep: NAME: binary file matches"), exit 0; -a prints
  // them, -c and -l count and list as for text. A file up to 1 GiB is one window: hidden whole.
  file("text.txt", "needle one\nhay\n");
  file("bin.dat", std::string("ELF\0\0needle\nneedle two\n", 23));
  file("bin-none.dat", std::string("\0hay\n", 5));
  file("late-nul.txt", "needle\n" + std::string(70000, 'x') + "\n" + std::string("\0\n", 2));
  const std::vector<std::string> inputs = {"text.txt", "bin.dat", "bin-none.dat", "late-nul.txt"};
  for (std::vector<std::string> args : std::vector<std::vector<std::string>>{
           {"needle"}, {"-n", "needle"}, {"-C", "1", "needle"}, {"-a", "needle"}, {"-c", "needle"}, {"-l", "needle"}}) {
    args.insert(args.end(), inputs.begin(), inputs.end());
    const auto [got, want, what] = find_and_grep(args);
    std::string want_err = want.err;
    for (const std::string name : {"/usr/bin/grep: ", "grep: "})  // grep names itself as run
      for (std::size_t at; (at = want_err.find(name)) != std::string::npos;) want_err.replace(at, name.size(), "warpmatch: ");
    EXPECT_EQ(got.out, want.out) << what;
    EXPECT_EQ(got.err, want_err) << what;
    EXPECT_EQ(got.status, want.status) << what;
  }
  EXPECT_EQ(wm({"find", "--lines", "needle", "bin.dat"}).status, 0);
  EXPECT_EQ(wm({"find", "--lines", "hay", "bin-none.dat"}).err, "warpmatch: bin-none.dat: binary file matches\n");
  // A stream: the windows before the NUL's print their lines (grep: its buffers before it).
  std::string late = "needle\n";
  while (late.size() < (std::size_t{3} << 20)) late += std::string(99, 'x') + "\n";
  late += std::string("\0needle\n", 8);
  file("late.txt", late);
  const CliResult streamed = shell("cat late.txt | \"$WM\" find --window 1M --lines needle");
  EXPECT_EQ(streamed.out, "needle\n");
  EXPECT_EQ(streamed.err, "warpmatch: (standard input): binary file matches\n");
  EXPECT_EQ(streamed.status, 0);
  // JSON escapes the bytes: the lines are printed; so are -o's hits.
  EXPECT_NE(wm({"find", "--json", "--lines", "needle", "bin.dat"}).out.find("needle two"), std::string::npos);
  EXPECT_EQ(wm({"find", "-o", "needle", "bin.dat"}).out, "needle\nneedle\n");
  EXPECT_EQ(wm({"approx", "-k", "0", "--lines", "needle", "bin.dat"}).err, "warpmatch: bin.dat: binary file matches\n");
}

TEST_F(CliFiles, DereferenceRecursiveFollowsLinksAsGrepR) {
  make_tree();  // t/link.txt -> ../outside.txt, t/dirlink -> sub: followed by -R, not by -r
  fs::create_directory_symlink("..", dir_ / "t/sub/up");  // a loop: t/sub/up is t
  const auto stderr_lines = [](const std::string& err, const std::string& tool) {
    std::vector<std::string> lines = sorted_lines(err);
    for (std::string& line : lines)
      if (line.rfind(tool + ":", 0) == 0) line = "TOOL" + line.substr(tool.size());
    return lines;
  };
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"-R", "needle", "t"}, {"-R", "-l", "needle", "t"}, {"-R", "-c", "needle", "t/dirlink"},
        {"-R", "-s", "needle", "t"}, {"-R", "--exclude-dir=deeper", "-L", "needle", "t"}}) {
    const auto [got, want, what] = find_and_grep(args);
    EXPECT_EQ(sorted_lines(got.out, "c.txt.gz"), sorted_lines(want.out, "c.txt.gz")) << what;
    EXPECT_EQ(got.status, want.status) << what;  // the loops are warnings: 0
    EXPECT_EQ(stderr_lines(got.err, "warpmatch"), stderr_lines(want.err, "/usr/bin/grep")) << what;
  }
  const CliResult followed = wm({"find", "-R", "-l", "needle", "t"});
  EXPECT_EQ(followed.out, "t/a-b.txt\nt/a.txt\nt/b.txt\nt/c.txt.gz\nt/dirlink/deeper/m.txt\nt/dirlink/z.txt\nt/link.txt\n"
                          "t/sub/deeper/m.txt\nt/sub/z.txt\nt/sub-x.txt\n");
  EXPECT_EQ(followed.err, "warpmatch: t/dirlink/up: warning: recursive directory loop\n"
                          "warpmatch: t/sub/up: warning: recursive directory loop\n");
  EXPECT_EQ(followed.status, 0);
  // -r still follows none of them; a link to nothing is an error for it under -R (exit 2).
  EXPECT_EQ(wm({"find", "-r", "-l", "needle", "t"}).out, kTreeWithMatches);
  fs::create_symlink("missing", dir_ / "t/dangling");
  const CliResult dangling = wm({"find", "-R", "-c", "needle", "t"});
  EXPECT_EQ(dangling.status, 2);
  EXPECT_NE(dangling.err.find("warpmatch: t/dangling: No such file or directory"), std::string::npos) << dangling.err;
  EXPECT_EQ(grep({"-R", "-c", "needle", "t"}).status, 2);
  // The working directory, and approx.
  const CliResult here = shell("cd t/sub && \"$WM\" approx -k 0 -R -l needle 2>&1");
  EXPECT_EQ(here.out, "deeper/m.txt\nup/a-b.txt\nup/a.txt\nup/b.txt\nup/c.txt.gz\nwarpmatch: up/dangling: No such file or directory\n"
                      "warpmatch: up/dirlink: warning: recursive directory loop\nup/link.txt\n"
                      "warpmatch: up/sub: warning: recursive directory loop\nup/sub-x.txt\nz.txt\n");
}
