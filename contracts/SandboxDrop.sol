// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {TraitERC721} from "./TraitERC721.sol";

/// A drop of the sandbox: an ERC721 minted in stages (public or allowlist), each with a price,
/// a per-wallet limit, a supply and a time window; the owner can pause it. `mint` sends the tokens
/// to `minter`, whoever pays (the API's mint endpoint builds this call).
contract SandboxDrop is TraitERC721 {
    struct Stage {
        uint64 start;
        uint64 end;
        uint128 price;
        uint32 perWalletLimit;
        uint32 supply;
        uint32 minted;
        /// Merkle root of keccak256(abi.encodePacked(address)) leaves (sorted pairs); 0 = public.
        bytes32 allowlistRoot;
    }

    uint256 public maxSupply;
    bool public paused;
    Stage[] private stages;
    mapping(uint256 => mapping(address => uint256)) public mintedInStage;

    event StageSet(uint256 indexed index);
    event Paused(bool paused);

    error NotOwner();
    error DropPaused();
    error StageNotActive(uint256 index);
    error NotOnAllowlist(address minter);
    error WalletLimitExceeded(uint256 limit);
    error SupplyExhausted();
    error WrongPayment(uint256 expected);
    error BadQuantity();
    error MintOnlyThroughStages();

    constructor(string memory name_, string memory symbol_, string memory baseURI_, uint256 maxSupply_)
        TraitERC721(name_, symbol_, baseURI_)
    {
        maxSupply = maxSupply_;
    }

    /// Tokens of a drop come only from its stages.
    function mint(address, uint256) external pure override {
        revert MintOnlyThroughStages();
    }

    modifier onlyOwner() {
        if (msg.sender != owner) revert NotOwner();
        _;
    }

    function setStage(uint256 index, Stage calldata stage) external onlyOwner {
        if (index == stages.length) stages.push(stage);
        else stages[index] = stage;
        emit StageSet(index);
    }

    /// Moves a stage's window; its price, limits, supply and minted count stay.
    function setStageWindow(uint256 index, uint64 start, uint64 end) external onlyOwner {
        Stage storage s = stages[index];
        s.start = start;
        s.end = end;
        emit StageSet(index);
    }

    function setPaused(bool value) external onlyOwner {
        paused = value;
        emit Paused(value);
    }

    function stageCount() external view returns (uint256) {
        return stages.length;
    }

    function stage(uint256 index) external view returns (Stage memory) {
        return stages[index];
    }

    function mint(uint256 stageIndex, address minter, uint256 quantity, bytes32[] calldata proof) external payable {
        if (paused) revert DropPaused();
        if (quantity == 0) revert BadQuantity();
        Stage storage s = stages[stageIndex];
        if (block.timestamp < s.start || block.timestamp >= s.end) revert StageNotActive(stageIndex);
        if (s.allowlistRoot != bytes32(0) && !verify(proof, s.allowlistRoot, keccak256(abi.encodePacked(minter)))) {
            revert NotOnAllowlist(minter);
        }
        if (mintedInStage[stageIndex][minter] + quantity > s.perWalletLimit) revert WalletLimitExceeded(s.perWalletLimit);
        if (s.minted + quantity > s.supply || totalSupply + quantity > maxSupply) revert SupplyExhausted();
        if (msg.value != uint256(s.price) * quantity) revert WrongPayment(uint256(s.price) * quantity);
        mintedInStage[stageIndex][minter] += quantity;
        s.minted += uint32(quantity);
        for (uint256 i = 0; i < quantity; i++) {
            _mint(minter, totalSupply + 1);
        }
    }

    function withdraw(address payable to) external onlyOwner {
        (bool ok,) = to.call{value: address(this).balance}("");
        require(ok, "Drop: withdraw");
    }

    function verify(bytes32[] calldata proof, bytes32 root, bytes32 leaf) internal pure returns (bool) {
        bytes32 h = leaf;
        for (uint256 i = 0; i < proof.length; i++) {
            bytes32 p = proof[i];
            h = h < p ? keccak256(abi.encodePacked(h, p)) : keccak256(abi.encodePacked(p, h));
        }
        return h == root;
    }
}
