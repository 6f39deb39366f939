fn main() {
    std::process::exit(mneme_gate::cli::run());
}
