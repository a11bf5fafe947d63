use super::Program;

pub fn programs() -> Vec<Program> {
    Vec::new()
}
